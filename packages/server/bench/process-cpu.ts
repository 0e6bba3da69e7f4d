import { readFileSync } from "node:fs"
import { query } from "./support.js"

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100

/** A process's CPU time so far (user + system) in ms; 0 when it is gone or there is no /proc. */
export const cpuMs = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S
  } catch {
    return 0
  }
}

/** CPU ms so far of each Postgres backend connected to the database at `url`, by pid, grouped by application_name. */
export const backendCpu = async (url: string): Promise<Map<string, Map<number, number>>> => {
  const rows = (await query(url, `select pid, coalesce(application_name, '') as app from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()`)).rows as Array<{ pid: number; app: string }>
  const byApp = new Map<string, Map<number, number>>()
  for (const r of rows) {
    const m = byApp.get(r.app) ?? new Map<number, number>()
    m.set(r.pid, cpuMs(r.pid))
    byApp.set(r.app, m)
  }
  return byApp
}

/** CPU ms the backends of `app` used between two `backendCpu` readings (a backend that appeared counts from 0). */
export const backendCpuBetween = (
  before: Map<string, Map<number, number>>,
  after: Map<string, Map<number, number>>,
  app: string
): number => {
  let ms = 0
  for (const [pid, now] of after.get(app) ?? []) ms += now - (before.get(app)?.get(pid) ?? 0)
  return ms
}
