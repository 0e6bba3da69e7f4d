// The registry reachable here serves only some platform builds of rollup and
// turbo, so `npm install` writes a lock without entries for the others and
// `npm ci` then refuses the lock as out of sync. This adds those optional
// entries (name, version, os/cpu/libc) so the lock is complete on every platform;
// npm skips them wherever the platform does not match.
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages
const osOf = { android: "android", darwin: "darwin", freebsd: "freebsd", linux: "linux", openbsd: "openbsd", openharmony: "openharmony", win32: "win32", windows: "win32" }
const cpuOf = (token) => ({ "64": "x64", x64: "x64", arm64: "arm64", arm: "arm", ia32: "ia32", loong64: "loong64", ppc64: "ppc64", riscv64: "riscv64", s390x: "s390x" })[token]

let added = 0
for (const [key, entry] of Object.entries({ ...packages })) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (!/^@(rollup|turbo)\//.test(name)) continue
    const base = key === "" ? "" : `${key}/`
    const target = `${base.startsWith("node_modules/") || base === "" ? base : base}node_modules/${name}`.replace(/^\//, "")
    const hoisted = `node_modules/${name}`
    if (packages[target] || packages[hoisted]) continue
    const [os, cpuToken, abi] = name.split("/")[1].replace(/^rollup-/, "").split("-")
    const record = { version, optional: true, os: [osOf[os]], cpu: [cpuOf(cpuToken)] }
    if (abi === "gnu" || abi === "gnueabihf") record.libc = ["glibc"]
    if (abi === "musl" || abi === "musleabihf") record.libc = ["musl"]
    if (!record.os[0] || !record.cpu[0]) throw new Error(`cannot map ${name}`)
    packages[hoisted] = record
    added++
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))))
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n")
console.log(`added ${added} platform entries`)
