import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { VERSION } from "../src/index.js"

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
const dist = (file: string) => new URL(`../dist/${file}`, import.meta.url)

describe("VERSION", () => {
  it("is package.json's version when the tests run the source", () => {
    expect(VERSION).toBe(version)
  })

  it.each([
    ["ESM", () => import(dist("index.js").href) as Promise<{ VERSION: string }>],
    ["CJS", async () => createRequire(import.meta.url)(dist("index.cjs").pathname) as { VERSION: string }]
  ])("is package.json's version in the %s build (run the build first)", async (_format, load) => {
    expect((await load()).VERSION).toBe(version)
  })
})
