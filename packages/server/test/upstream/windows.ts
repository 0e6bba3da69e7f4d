/** Largest number of acquisitions inside any half-open window of `windowMs`. */
export const maxInWindow = (times: ReadonlyArray<number>, windowMs: number) => {
  const sorted = [...times].sort((a, b) => a - b)
  let max = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= windowMs) j++
    max = Math.max(max, i - j + 1)
  }
  return max
}
