// Builds dist/pglite-seed.tar.gz: an initialised, empty PGlite cluster. Running
// initdb inside WebAssembly takes several seconds on a small machine; loading
// this tarball takes a fraction of that, so a first `npm start` and every test
// file's in-memory database come up fast.
import { mkdirSync, writeFileSync } from "node:fs"
import { PGlite } from "@electric-sql/pglite"

const target = new URL("../dist/pglite-seed.tar.gz", import.meta.url)
mkdirSync(new URL("../dist/", import.meta.url), { recursive: true })
const db = await PGlite.create()
const dump = await db.dumpDataDir("gzip")
writeFileSync(target, Buffer.from(await dump.arrayBuffer()))
await db.close()
