export * from "./health.js"
export * from "./platform-api.js"
