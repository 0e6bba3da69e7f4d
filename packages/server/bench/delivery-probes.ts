/**
 * Diagnostics of bench:delivery: CPU and allocation profiles of this process (the
 * engine's), CPU time of processes and of the machine, and this process's main
 * thread's share of the wall time it ran and waited for a CPU.
 */
import { readFile, writeFile } from "node:fs/promises"
import { Session } from "node:inspector/promises"

const inspector = new Session()
let inspecting = false
const session = () => {
  if (!inspecting) inspector.connect()
  inspecting = true
  return inspector
}
export const startProfile = async () => {
  await session().post("Profiler.enable")
  await session().post("Profiler.start")
}
/** Where the profile `kind` (cpuprofile, heapprofile) of run `name` goes, when its variable asks for one. */
export const profilePath = (base: string | undefined, kind: string, name: string) =>
  base?.replace(new RegExp(`(\\.${kind})?$`), `.${name}.${kind}`)
export const stopProfile = async (path: string) => {
  const { profile } = await session().post("Profiler.stop")
  await writeFile(path, JSON.stringify(profile))
}
// Sampled allocations, including the ones already collected: where the garbage comes from.
export const startHeapProfile = () =>
  session().post("HeapProfiler.startSampling", {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  } as never)
export const stopHeapProfile = async (path: string) => {
  const { profile } = await session().post("HeapProfiler.stopSampling")
  await writeFile(path, JSON.stringify(profile))
}

/** CPU seconds a process has used so far (0 once it is gone). */
export const cpuOf = async (pid: number) => {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).replace(/^.*\) /, "").split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

/**
 * This process's main thread so far (Linux schedstat, seconds): time on a CPU, and time
 * runnable but waiting for one (the other processes of the machine had both cores).
 */
export const mainThread = async () => {
  try {
    const [run, wait] = (await readFile(`/proc/self/task/${process.pid}/schedstat`, "utf8")).split(" ").map(Number)
    return { run: run! / 1e9, wait: wait! / 1e9, at: performance.now() / 1000 }
  } catch {
    return { run: NaN, wait: NaN, at: performance.now() / 1000 }
  }
}
type ThreadReading = Awaited<ReturnType<typeof mainThread>>
/** The share of wall time between two readings the main thread ran, and waited for a CPU. */
export const threadShares = (before: ThreadReading, after: ThreadReading) => {
  const wall = after.at - before.at
  const pct = (x: number) => `${Math.round((x / wall) * 100)}%`
  return { running: pct(after.run - before.run), waiting_for_cpu: pct(after.wait - before.wait) }
}

/** CPU seconds of the whole machine so far (every core, not idle). */
export const machineCpu = async () => {
  const cpu = (await readFile("/proc/stat", "utf8")).split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
  return (cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!) / 100
}

