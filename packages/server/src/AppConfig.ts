/**
 * Configuration, read from the environment once at start. Invalid values stop the process with a
 * message naming the variable.
 */
import { parseTrustProxy, type TrustProxy } from "@gateway-control/adapters-http"
import { BaseUrl, DEFAULT_MAX_RENDER_BYTES } from "@gateway-control/domain"
import { Config, Effect, type LogLevel, Option, type Redacted, Schema } from "effect"
import { loadMcpConfig, type McpConfig } from "./McpConfig.ts"

export class InvalidConfiguration extends Schema.TaggedError<InvalidConfiguration>()("InvalidConfiguration", {
  message: Schema.String
}) {}

export const StoreKind = ["memory", "pglite", "postgres"] as const
export type StoreKind = (typeof StoreKind)[number]

/** Where and how to store: chosen by `GATEWAY_STORE`, else PostgreSQL when `DATABASE_URL` is set, else PGlite. */
export type StoreConfig =
  | { readonly kind: "memory" }
  | { readonly kind: "pglite"; readonly dataDir: string }
  | { readonly kind: "postgres"; readonly url: Redacted.Redacted<string>; readonly poolSize: number }

const LogLevels = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

export interface AppConfig {
  readonly host: string
  readonly port: number
  readonly store: StoreConfig
  readonly maxBodyBytes: number
  /** The most bytes a render's rendered messages or prompt may take in its answer. */
  readonly maxRenderBytes: number
  readonly logLevel: LogLevel.LogLevel
  readonly shutdownTimeoutMs: number
  /** Which proxies' `X-Forwarded-For` entries name the client: `TRUST_PROXY`, parsed by `parseTrustProxy`. */
  readonly trustProxy: TrustProxy
  /** 32 bytes, base64; when absent the embedded and PostgreSQL stores keep one in DATA_DIR. */
  readonly masterKey: Option.Option<Redacted.Redacted<string>>
  readonly dataDir: string
  readonly upstreamTimeoutMs: number
  readonly trustedCustomHosts: ReadonlyArray<string>
  /** Overrides of provider base URLs: `name=url` pairs. */
  readonly providerBaseUrls: ReadonlyArray<readonly [string, string]>
  /** MCP connections, health checks and secrets: `MCP_*` (McpConfig.ts). */
  readonly mcp: McpConfig
}

function resolveStore(settings: {
  readonly kind: Option.Option<StoreKind>
  readonly url: Option.Option<Redacted.Redacted<string>>
  readonly poolSize: number
  readonly dataDir: string
}): StoreConfig | InvalidConfiguration {
  const kind = Option.getOrElse(settings.kind, () => (Option.isSome(settings.url) ? "postgres" : "pglite") as StoreKind)
  switch (kind) {
    case "memory":
      return { kind }
    case "pglite":
      return { kind, dataDir: settings.dataDir }
    case "postgres":
      if (Option.isNone(settings.url)) {
        return new InvalidConfiguration({
          message: "GATEWAY_STORE=postgres needs DATABASE_URL (postgres://user@host:5432/db)."
        })
      }
      if (settings.poolSize < 1) {
        return new InvalidConfiguration({ message: "DATABASE_POOL_SIZE must be at least 1." })
      }
      return { kind, url: settings.url.value, poolSize: settings.poolSize }
  }
}

const RawConfig = Config.all({
  host: Config.String("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.Port("PORT").pipe(Config.withDefault(8787)),
  store: Config.all({
    kind: Config.option(Config.Literals(StoreKind, "GATEWAY_STORE")),
    url: Config.option(Config.Redacted("DATABASE_URL")),
    poolSize: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(10)),
    dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.gateway-data"))
  }).pipe(Config.map(resolveStore)),
  maxBodyBytes: Config.Int("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024)),
  maxRenderBytes: Config.Int("MAX_RENDER_BYTES").pipe(Config.withDefault(DEFAULT_MAX_RENDER_BYTES)),
  logLevel: Config.Literals(Object.keys(LogLevels) as Array<keyof typeof LogLevels>, "LOG_LEVEL").pipe(
    Config.withDefault<keyof typeof LogLevels>("info"),
    Config.map((name) => LogLevels[name])
  ),
  shutdownTimeoutMs: Config.Int("SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(20_000)),
  trustProxy: Config.String("TRUST_PROXY").pipe(Config.withDefault("false")),
  masterKey: Config.option(Config.Redacted("GATEWAY_MASTER_KEY")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.gateway-data")),
  upstreamTimeoutMs: Config.Int("UPSTREAM_TIMEOUT_MS").pipe(Config.withDefault(30_000)),
  trustedCustomHosts: Config.String("TRUSTED_CUSTOM_HOSTS").pipe(
    Config.withDefault(""),
    Config.map((list) => list.split(",").map((h) => h.trim().toLowerCase()).filter((h) => h.length > 0))
  ),
  providerBaseUrls: Config.String("PROVIDER_BASE_URLS").pipe(
    Config.withDefault(""),
    Config.map((list) =>
      list.split(",").map((pair) => pair.trim()).filter((pair) => pair.length > 0).map((pair) => {
        const at = pair.indexOf("=")
        return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()] as const
      })
    )
  )
})

const isBaseUrl = Schema.is(BaseUrl)

/** The configuration from the environment; a bad or contradictory value fails with a message naming it. */
export const loadConfig: Effect.Effect<AppConfig, InvalidConfiguration> = Effect.gen(function*() {
  const raw = yield* Effect.mapError(
    RawConfig,
    (error) => new InvalidConfiguration({ message: `Invalid configuration: ${error.message}` })
  )
  if (raw.store instanceof InvalidConfiguration) return yield* raw.store
  if (raw.maxBodyBytes < 1) return yield* new InvalidConfiguration({ message: "MAX_BODY_BYTES must be at least 1." })
  if (raw.maxRenderBytes < 1) {
    return yield* new InvalidConfiguration({ message: "MAX_RENDER_BYTES must be at least 1." })
  }
  if (raw.upstreamTimeoutMs < 1) {
    return yield* new InvalidConfiguration({ message: "UPSTREAM_TIMEOUT_MS must be at least 1." })
  }
  for (const [name, url] of raw.providerBaseUrls) {
    if (name.length === 0 || !isBaseUrl(url)) {
      return yield* new InvalidConfiguration({
        message: `PROVIDER_BASE_URLS takes name=http(s)://base-url pairs separated by commas (no credentials, ` +
          `query or fragment in the URL); got '${name}=${url}'.`
      })
    }
  }
  const trustProxy = parseTrustProxy(raw.trustProxy)
  if ("error" in trustProxy) return yield* new InvalidConfiguration({ message: trustProxy.error })
  const mcp = yield* Effect.mapError(loadMcpConfig, (error) => new InvalidConfiguration({ message: error.message }))
  return { ...raw, store: raw.store, trustProxy: trustProxy.trust, mcp }
})
