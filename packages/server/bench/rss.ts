/**
 * Resident memory of the benches' processes (Linux /proc): the peak (VmHWM) of a process
 * so far, and a reset of this process's peak, so that a bench can tell the peak of one
 * phase (the engine's runs) from that of another (its peers, in the same process).
 */
import { readFileSync, writeFileSync } from "node:fs"

const field = (pid: number | "self", name: "VmHWM" | "VmRSS") => {
  try {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? NaN : Number(match[1]) / 1024
  } catch {
    return NaN
  }
}

/** The peak resident set of `pid` so far (since its start or its last reset), MB; NaN once it is gone or off Linux. */
export const peakRssMb = (pid: number | "self" = "self") =>
  pid === "self" && !Number.isFinite(field("self", "VmHWM")) ? process.resourceUsage().maxRSS / 1024 : field(pid, "VmHWM")

/** The resident set of `pid` now, MB. */
export const rssMb = (pid: number | "self" = "self") =>
  pid === "self" && !Number.isFinite(field("self", "VmRSS")) ? process.memoryUsage().rss / 2 ** 20 : field(pid, "VmRSS")

/** Resets this process's peak (Linux: `5` to /proc/self/clear_refs); false where it cannot. */
export const resetPeakRss = () => {
  try {
    writeFileSync("/proc/self/clear_refs", "5")
    return true
  } catch {
    return false
  }
}

export const mb = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} MB` : "n/a")
