export { run, buildProgram, ExitCode, type RunIO } from "./program.js"
export { Context, CliError, type ConfigFile, type Profile } from "./context.js"
