import { Effect } from "effect"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { StartupError } from "../startup-failure.js"

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

const acquire = (dataDir: string): string => {
  const path = `${resolve(dataDir)}.lock`
  mkdirSync(dirname(path), { recursive: true })
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx" })
      return path
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
    }
    let holder = Number.NaN
    try {
      holder = Number(readFileSync(path, "utf8").trim())
    } catch {
      // removed in between: try again
    }
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)) {
      throw new StartupError({
        message: `the embedded database in ${dataDir} is in use by another server (pid ${holder}). ` +
          "Stop that one first, or give this one its own PGLITE_DIR (or a DATABASE_URL)."
      })
    }
    // Left by a process that is gone (a crash, kill -9): the directory is free.
    rmSync(path, { force: true })
  }
  throw new StartupError({ message: `could not lock the embedded database in ${dataDir} (${path})` })
}

/**
 * Holds `<dataDir>.lock` (the owner's pid) for the scope: PGlite is one process's
 * database, and a second server opening the same directory (`npm start` run twice)
 * would write the same files from two processes and corrupt them.
 */
export const lockDataDir = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.sync(() => acquire(dataDir)),
    (path) => Effect.sync(() => rmSync(path, { force: true }))
  )
