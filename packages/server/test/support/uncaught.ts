import { afterAll, beforeAll, beforeEach } from "vitest"

/**
 * Records the exceptions no one caught while the file's tests run (an 'error' event of
 * a pg client without a listener is one: it would end the process), instead of
 * letting them end the test worker; each test starts with none recorded.
 */
export const recordUncaught = () => {
  const uncaught: Array<unknown> = []
  const record = (error: unknown) => void uncaught.push(error)
  beforeAll(() => void process.on("uncaughtException", record))
  afterAll(() => void process.off("uncaughtException", record))
  beforeEach(() => void uncaught.splice(0))
  return uncaught
}
