/** First day of the current calendar month in UTC, as `YYYY-MM-01`. */
export const currentPeriod = (now = new Date()): string =>
  `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}-01`
