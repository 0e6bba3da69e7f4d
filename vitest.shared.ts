/**
 * Reporters for every package: the default one, plus a JSON report under
 * TEST_RESULTS_DIR when CI sets it, which .ci/run sums into its closing line.
 */
export const reporters = (name: string): Array<string | [string, Record<string, unknown>]> => {
  const dir = process.env.TEST_RESULTS_DIR
  return dir ? ["default", ["json", { outputFile: `${dir}/${name}.json` }]] : ["default"]
}
