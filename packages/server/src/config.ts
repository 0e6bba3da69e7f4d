import { Config, ConfigError, ConfigProvider, Effect, Either, Layer, Option, Redacted } from "effect"
import { join } from "node:path"

export type Role = "all" | "api" | "worker"
export type Upstream = "sandbox" | "meta"

// An empty variable (`DATABASE_URL=`) means unset, as in most tools.
const nonEmpty = <A>(config: Config.Config<A>, text: (a: A) => string) =>
  Config.option(config).pipe(Config.map(Option.filter((a: A) => text(a).trim() !== "")))
const optionalString = (name: string) => nonEmpty(Config.string(name), (s) => s)
const optionalSecret = (name: string) => nonEmpty(Config.redacted(name), Redacted.value)

const raw = Config.all({
  port: Config.integer("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  publicUrl: optionalString("PUBLIC_URL"),
  databaseUrl: optionalSecret("DATABASE_URL"),
  pgliteDir: optionalString("PGLITE_DIR"),
  pgliteMemory: Config.boolean("PGLITE_MEMORY").pipe(Config.withDefault(false)),
  upstream: Config.literal("sandbox", "meta")("UPSTREAM").pipe(Config.withDefault("sandbox" as const)),
  metaGraphUrl: optionalString("META_GRAPH_URL"),
  metaGraphVersion: Config.string("META_GRAPH_VERSION").pipe(Config.withDefault("v23.0")),
  metaAppId: Config.string("META_APP_ID").pipe(Config.withDefault("sandbox-app")),
  metaAppSecret: Config.redacted("META_APP_SECRET").pipe(Config.withDefault(Redacted.make("sandbox-app-secret"))),
  metaVerifyToken: Config.redacted("META_VERIFY_TOKEN").pipe(Config.withDefault(Redacted.make("sandbox-verify-token"))),
  encryptionKey: optionalSecret("ENCRYPTION_KEY"),
  sessionSecret: optionalSecret("SESSION_SECRET"),
  redisUrl: optionalSecret("REDIS_URL"),
  role: Config.literal("all", "api", "worker")("ROLE").pipe(Config.withDefault("all" as const)),
  unsafeAllowLocalTargets: Config.option(Config.boolean("UNSAFE_ALLOW_LOCAL_TARGETS")),
  sandboxCallbackDelayMs: Config.integer("SANDBOX_CALLBACK_DELAY_MS").pipe(Config.withDefault(200)),
  logLevel: Config.literal("trace", "debug", "info", "warning", "error", "fatal", "none")("LOG_LEVEL").pipe(
    Config.withDefault("info" as const)
  ),
  logFormat: Config.option(Config.literal("pretty", "json")("LOG_FORMAT")),
  nodeEnv: Config.string("NODE_ENV").pipe(Config.withDefault("development")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  shutdownGraceMs: Config.integer("SHUTDOWN_GRACE_MS").pipe(
    Config.validate({ message: "must be 0 or more (milliseconds)", validation: (ms) => ms >= 0 }),
    Config.withDefault(10_000)
  ),
  deliveryLeaseMs: Config.integer("DELIVERY_LEASE_MS").pipe(
    Config.validate({
      message: "must be 100 to 30000 (milliseconds): a dead holder's rows are taken over after it",
      validation: (ms) => ms >= 100 && ms <= 30_000
    }),
    Config.withDefault(10_000)
  ),
  metricsToken: optionalSecret("METRICS_TOKEN"),
  metricsPort: optionalString("METRICS_PORT"),
  metricsHost: Config.string("METRICS_HOST").pipe(Config.withDefault("127.0.0.1")),
  otlpEndpoint: optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"),
  otelServiceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("platform-server")),
  dashboardDir: optionalString("DASHBOARD_DIR")
})

/** The conventional port of a Prometheus exporter (OpenTelemetry's too), on loopback unless METRICS_HOST says otherwise. */
export const DEFAULT_METRICS_PORT = 9464

/**
 * Where /metrics gets a listener of its own: `METRICS_PORT` (a port, or `off`); unset, port
 * 9464 unless `METRICS_TOKEN` is set (then /metrics is served on the main listener only).
 */
const metricsListenerOf = (port: Option.Option<string>, token: Option.Option<unknown>) => {
  const given = Option.getOrUndefined(port)?.trim().toLowerCase()
  if (given === "off") return Either.right({ port: Option.none<number>(), defaulted: false })
  if (given === undefined) {
    return Either.right({ port: Option.isSome(token) ? Option.none<number>() : Option.some(DEFAULT_METRICS_PORT), defaulted: true })
  }
  const n = Number(given)
  return /^\d{1,5}$/.test(given) && n <= 65535
    ? Either.right({ port: Option.some(n), defaulted: false })
    : Either.left(ConfigError.InvalidData(["METRICS_PORT"], `expected a port number or "off", got ${JSON.stringify(given)}`))
}

/**
 * Every environment variable of DESIGN §3, read once at start-up.
 * Secrets stay `Redacted` so they never reach a log line by accident.
 */
export class AppConfig extends Effect.Service<AppConfig>()("@platform/server/AppConfig", {
  effect: Effect.gen(function*() {
    const c = yield* raw
    const production = c.nodeEnv === "production"
    if (production && Option.getOrElse(c.unsafeAllowLocalTargets, () => false)) {
      return yield* Effect.fail(
        ConfigError.InvalidData(["UNSAFE_ALLOW_LOCAL_TARGETS"], "is refused with NODE_ENV=production")
      )
    }
    if (production && (Option.isNone(c.encryptionKey) || Option.isNone(c.sessionSecret))) {
      return yield* Effect.fail(
        ConfigError.MissingData(["ENCRYPTION_KEY"], "ENCRYPTION_KEY and SESSION_SECRET are required with NODE_ENV=production")
      )
    }
    const metricsListener = metricsListenerOf(c.metricsPort, c.metricsToken)
    if (Either.isLeft(metricsListener)) return yield* Effect.fail(metricsListener.left)
    const publicUrl = Option.getOrElse(c.publicUrl, () => `http://localhost:${c.port}`).replace(/\/+$/, "")
    const metaGraphUrl = Option.getOrElse(
      c.metaGraphUrl,
      () => c.upstream === "sandbox" ? `${publicUrl}/__sandbox/graph` : "https://graph.facebook.com"
    ).replace(/\/+$/, "")
    return {
      ...c,
      production,
      // Unset: on with the sandbox outside production, so a receiver on the developer's machine
      // gets deliveries after a plain `npm start`; off with UPSTREAM=meta or in production.
      unsafeAllowLocalTargets: Option.getOrElse(c.unsafeAllowLocalTargets, () => c.upstream === "sandbox" && !production),
      localTargetsByDefault: Option.isNone(c.unsafeAllowLocalTargets) && c.upstream === "sandbox" && !production,
      // Everything kept locally lives under DATA_DIR unless PGLITE_DIR moves the database.
      pgliteDir: Option.getOrElse(c.pgliteDir, () => join(c.dataDir, "pglite")),
      publicUrl,
      metaGraphUrl,
      metricsListener: metricsListener.right,
      runsApi: c.role !== "worker",
      runsWorkers: c.role !== "api"
    } as const
  })
}) {
  /** A config for tests: defaults plus the overrides given, without reading the environment. */
  static readonly layerWith = (overrides: Partial<Record<string, string>>) =>
    AppConfig.Default.pipe(
      Layer.provide(Layer.setConfigProvider(
        ConfigProvider.fromMap(new Map(
          Object.entries({ PGLITE_MEMORY: "true", UNSAFE_ALLOW_LOCAL_TARGETS: "true", ...overrides })
            .filter((entry): entry is [string, string] => entry[1] !== undefined)
        ))
      ))
    )
}
