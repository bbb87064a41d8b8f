/**
 * Every setting of gateway-control, once: the environment variable `gateway-control serve` reads it from,
 * its name as an embedding option (the key of `settings`), its default and its rule. The environment and
 * the embedding options both decode through this table, so their defaults and checks cannot drift apart.
 */
import { parseTrustProxy, type TrustProxy } from "@gateway-control/adapters-http"
import {
  BaseUrl,
  checkAllowedDomains,
  checkIssuerUrl,
  checkRoleMap,
  DEFAULT_MAX_RENDER_BYTES,
  DEFAULT_MAX_RENDER_STEPS,
  DEFAULT_SESSION_SETTINGS,
  DEFAULT_STORE_OUTAGE_SNAPSHOT_MS,
  RoleMap
} from "@gateway-control/domain"
import { Effect, Exit, type LogLevel, Option, Redacted, Result, Schema } from "effect"

/** A setting that is missing, malformed or contradicts another; `setting` names it as it was given. */
export class InvalidConfiguration extends Schema.TaggedError<InvalidConfiguration>()("InvalidConfiguration", {
  message: Schema.String,
  /** The variable (`MAX_BODY_BYTES`) or option (`maxBodyBytes`) at fault, when one is. */
  setting: Schema.optionalKey(Schema.String)
}) {}

/** A setting's value from what was given, or a message that names the setting and says what is wrong. */
type Decode<A> = (input: unknown, name: string) => Result.Result<A, string>

interface Setting<A> {
  /** The variable of `gateway-control serve`; none for an embedding-only option. */
  readonly env?: string | undefined
  /** Only `serve` has it (where to listen): embedding takes no such option. */
  readonly serveOnly?: true | undefined
  /** The value when the setting is not given. */
  readonly defaultValue: A
  /** The variable's text in the form the option takes (a number for a number), for `decode`. */
  readonly fromText: (text: string) => unknown
  readonly decode: Decode<A>
}

const setting = <A>(definition: Setting<A>): Setting<A> => definition

/** OpenTelemetry's sampler names this service implements (`OTEL_TRACES_SAMPLER`). */
export const TRACES_SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const
export type TracesSamplerName = (typeof TRACES_SAMPLERS)[number]

const httpUrl: Decode<string> = (input, name) => {
  if (typeof input === "string" && URL.canParse(input)) {
    const url = new URL(input)
    if (url.protocol === "http:" || url.protocol === "https:") return Result.succeed(input)
  }
  return Result.fail(`${name} must be an http:// or https:// URL.`)
}

const asIs = (text: string): unknown => text
const numberText = (text: string): unknown => (/^\s*[+-]?\d+\s*$/.test(text) ? Number(text) : text)
const commaList = (text: string): unknown => text.split(",")

const wholeNumber = (minimum: number, maximum?: number): Decode<number> => (input, name) => {
  if (typeof input !== "number" || !Number.isSafeInteger(input)) return Result.fail(`${name} must be a whole number.`)
  if (input < minimum) return Result.fail(`${name} must be at least ${minimum}.`)
  if (maximum !== undefined && input > maximum) return Result.fail(`${name} must be at most ${maximum}.`)
  return Result.succeed(input)
}

const nonEmptyText: Decode<string> = (input, name) =>
  typeof input === "string" && input.trim().length > 0
    ? Result.succeed(input)
    : Result.fail(`${name} must be a non-empty string.`)

/** A secret given as text or as `Redacted` text. */
const secretText = (input: unknown): string | undefined => {
  const value = Redacted.isRedacted(input) ? Redacted.value(input) : input
  return typeof value === "string" ? value : undefined
}

/** A URL that may hold a password, given as text or `Redacted` text, kept redacted. */
const secretUrl =
  (accepts: (url: string) => boolean, expected: string): Decode<Option.Option<Redacted.Redacted<string>>> =>
  (input, name) => {
    const url = secretText(input)?.trim()
    return url === undefined || !accepts(url)
      ? Result.fail(`${name} must be ${expected}.`)
      : Result.succeed(Option.some(Redacted.make(url)))
  }

/** The master key's one rule, for the setting and for the key file alike; the message never shows the key. */
export const decodeMasterKey = (input: unknown, name: string): Result.Result<Redacted.Redacted<Uint8Array>, string> => {
  const bytes = Buffer.from(secretText(input)?.trim() ?? "", "base64")
  return bytes.length === 32
    ? Result.succeed(Redacted.make(new Uint8Array(bytes)))
    : Result.fail(`${name} must hold 32 bytes in base64 (openssl rand -base64 32).`)
}

export const StoreKind = ["memory", "pglite", "postgres"] as const
export type StoreKind = (typeof StoreKind)[number]

const isStoreKind = (input: unknown): input is StoreKind => StoreKind.some((kind) => kind === input)

const LOG_LEVELS = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

const isLogLevelName = (input: unknown): input is keyof typeof LOG_LEVELS =>
  typeof input === "string" && Object.hasOwn(LOG_LEVELS, input)

/** How `trustProxy` is written as an option: what `TRUST_PROXY` takes, or its parsed form. */
export type TrustProxyInput = TrustProxy | string

const trustProxy: Decode<TrustProxy> = (input, name) => {
  const written = typeof input === "string" || typeof input === "boolean" || typeof input === "number"
    ? String(input)
    : Array.isArray(input) && input.every((entry) => typeof entry === "string")
    ? input.join(",")
    : undefined
  if (written === undefined) {
    return Result.fail(`${name} must be true, false, a number of proxies, or a list of proxy addresses and ranges.`)
  }
  const parsed = parseTrustProxy(written, name)
  return "error" in parsed ? Result.fail(parsed.error) : Result.succeed(parsed.trust)
}

const hostList: Decode<ReadonlyArray<string>> = (input, name) =>
  Array.isArray(input) && input.every((entry) => typeof entry === "string")
    ? Result.succeed(input.map((host) => host.trim().toLowerCase()).filter((host) => host.length > 0))
    : Result.fail(`${name} must be a list of host or host:port names.`)

const isBaseUrl = Schema.is(BaseUrl)

/** `name=url` pairs (the variable) or a record of names to URLs (the option). */
const providerPairs = (text: string): unknown =>
  text.split(",").map((pair) => pair.trim()).filter((pair) => pair.length > 0).map((pair) => {
    const at = pair.indexOf("=")
    return at === -1 ? [pair, ""] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()]
  })

const baseUrls: Decode<ReadonlyArray<readonly [string, string]>> = (input, name) => {
  const entries: Array<unknown> | undefined = Array.isArray(input)
    ? input
    : typeof input === "object" && input !== null
    ? Object.entries(input)
    : undefined
  if (entries === undefined) return Result.fail(`${name} must map provider names to http(s) base URLs.`)
  const pairs: Array<readonly [string, string]> = []
  for (const entry of entries) {
    const [provider, url] = Array.isArray(entry) ? entry : []
    if (typeof provider !== "string" || provider.length === 0 || typeof url !== "string" || !isBaseUrl(url)) {
      return Result.fail(
        `${name} pairs provider names with http(s) base URLs (name=url, separated by commas, in the variable), ` +
          `with no credentials, query or fragment in the URL; got '${String(provider)}=${String(url)}'.`
      )
    }
    pairs.push([provider, url])
  }
  return Result.succeed(pairs)
}

/** A path prefix such as `/gateway`: trailing slashes dropped, none for `/`. */
const basePath: Decode<Option.Option<string>> = (input, name) => {
  if (typeof input !== "string" || !/^\/[^?#\s]*$/.test(input) || input.includes("//")) {
    return Result.fail(`${name} must be a path that starts with '/', such as '/gateway' (no query, no '//').`)
  }
  const trimmed = input.replace(/\/+$/, "")
  return Result.succeed(trimmed.length === 0 ? Option.none() : Option.some(trimmed))
}

/** A domain check run on a setting's value: its refusal's message, or the value. */
const checked = <A>(check: Effect.Effect<A, { readonly message: string }>, name: string): Result.Result<A, string> => {
  const exit = Effect.runSyncExit(check)
  if (Exit.isSuccess(exit)) return Result.succeed(exit.value)
  const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  return Result.fail(`${name}: ${failure?._tag === "Fail" ? failure.error.message : "invalid"}`)
}

const optionalText: Decode<Option.Option<string>> = (input, name) =>
  Result.map(nonEmptyText(input, name), (text) => Option.some(text.trim()))

const decodeRoleMap = Schema.decodeUnknownResult(Schema.fromJsonString(RoleMap))

/** Sign-in with an identity provider (identity-providers in the domain); the provider is complete or absent. */
const signInSettings = {
  /** The gateway's external base URL; the redirect URI is `${PUBLIC_URL}/auth/oidc/callback`. */
  publicUrl: setting<Option.Option<string>>({
    env: "PUBLIC_URL",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) => {
      const text = typeof input === "string" ? input.trim().replace(/\/+$/, "") : ""
      return Schema.is(BaseUrl)(text) && text.length > 0
        ? Result.succeed(Option.some(text))
        : Result.fail(`${name} must be the gateway's external http(s) base URL, e.g. https://gateway.example.com.`)
    }
  }),
  oidcIssuer: setting<Option.Option<string>>({
    env: "OIDC_ISSUER",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) =>
      Result.flatMap(optionalText(input, name), (issuer) =>
        Option.isNone(issuer)
          ? Result.succeed(issuer)
          : Result.map(checked(checkIssuerUrl(issuer.value, "issuer"), name), Option.some))
  }),
  oidcClientId: setting<Option.Option<string>>({
    env: "OIDC_CLIENT_ID",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: optionalText
  }),
  oidcClientSecret: setting<Option.Option<Redacted.Redacted<string>>>({
    env: "OIDC_CLIENT_SECRET",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) => {
      const secret = secretText(input)
      return secret === undefined || secret.length === 0
        ? Result.fail(`${name} must be the client secret the provider issued.`)
        : Result.succeed(Option.some(Redacted.make(secret)))
    }
  }),
  oidcGroupsClaim: setting({ env: "OIDC_GROUPS_CLAIM", defaultValue: "groups", fromText: asIs, decode: nonEmptyText }),
  oidcRoleMap: setting<RoleMap>({
    env: "OIDC_ROLE_MAP",
    defaultValue: {},
    fromText: asIs,
    decode: (input, name) => {
      const decoded = typeof input === "string" ? decodeRoleMap(input) : Schema.decodeUnknownResult(RoleMap)(input)
      return Result.isFailure(decoded)
        ? Result.fail(
          `${name} must be JSON like {"<group>": {"organisation_role": "admin", "workspaces": {"<workspace slug>": "manager"}}}.`
        )
        : checked(checkRoleMap(decoded.success), name)
    }
  }),
  oidcAllowedDomains: setting<ReadonlyArray<string>>({
    env: "OIDC_ALLOWED_DOMAINS",
    defaultValue: [],
    fromText: (text) => text.split(",").map((d) => d.trim()).filter((d) => d.length > 0),
    decode: (input, name) =>
      Array.isArray(input) && input.every((d) => typeof d === "string")
        ? checked(checkAllowedDomains(input), name)
        : Result.fail(`${name} must be a list of email domains.`)
  })
}

export const settings = {
  host: setting({ env: "HOST", serveOnly: true, defaultValue: "127.0.0.1", fromText: asIs, decode: nonEmptyText }),
  port: setting({
    env: "PORT",
    serveOnly: true,
    defaultValue: 8787,
    fromText: numberText,
    decode: wholeNumber(1, 65535)
  }),
  store: setting<Option.Option<StoreKind>>({
    env: "GATEWAY_STORE",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) =>
      isStoreKind(input)
        ? Result.succeed(Option.some(input))
        : Result.fail(`${name} must be one of ${StoreKind.join(", ")}.`)
  }),
  url: setting<Option.Option<Redacted.Redacted<string>>>({
    env: "DATABASE_URL",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: secretUrl((url) => url.length > 0, "a PostgreSQL connection URL (postgres://user@host:5432/db)")
  }),
  /** Where the change feed listens: PostgreSQL itself when `DATABASE_URL` leads to a transaction-mode pooler. */
  listenUrl: setting<Option.Option<Redacted.Redacted<string>>>({
    env: "DATABASE_LISTEN_URL",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: secretUrl((url) => url.length > 0, "a PostgreSQL connection URL (postgres://user@host:5432/db)")
  }),
  poolSize: setting({ env: "DATABASE_POOL_SIZE", defaultValue: 10, fromText: numberText, decode: wholeNumber(1) }),
  /** PostgreSQL's `statement_timeout` for requests' statements, and the hung-server deadline (SqlStoreLayer.ts). */
  statementTimeoutMs: setting({
    env: "DATABASE_STATEMENT_TIMEOUT_MS",
    defaultValue: 5_000,
    fromText: numberText,
    decode: wholeNumber(0)
  }),
  connectTimeoutMs: setting({
    env: "DATABASE_CONNECT_TIMEOUT_MS",
    defaultValue: 5_000,
    fromText: numberText,
    decode: wholeNumber(1)
  }),
  /**
   * How old a cached key or render resolution may be and still answer while the store is unreachable
   * (StoreOutage.ts in the domain); 0: none past its ordinary lifetime.
   */
  storeOutageSnapshotMs: setting({
    env: "STORE_OUTAGE_SNAPSHOT_MS",
    defaultValue: DEFAULT_STORE_OUTAGE_SNAPSHOT_MS,
    fromText: numberText,
    decode: wholeNumber(0)
  }),
  dataDir: setting({ env: "DATA_DIR", defaultValue: "./.gateway-data", fromText: asIs, decode: nonEmptyText }),
  maxBodyBytes: setting({
    env: "MAX_BODY_BYTES",
    defaultValue: 1024 * 1024,
    fromText: numberText,
    decode: wholeNumber(1)
  }),
  maxRenderBytes: setting({
    env: "MAX_RENDER_BYTES",
    defaultValue: DEFAULT_MAX_RENDER_BYTES,
    fromText: numberText,
    decode: wholeNumber(1)
  }),
  maxRenderSteps: setting({
    env: "MAX_RENDER_STEPS",
    defaultValue: DEFAULT_MAX_RENDER_STEPS,
    fromText: numberText,
    decode: wholeNumber(1)
  }),
  logLevel: setting<LogLevel.LogLevel>({
    env: "LOG_LEVEL",
    defaultValue: "Info",
    fromText: asIs,
    decode: (input, name) =>
      isLogLevelName(input)
        ? Result.succeed(LOG_LEVELS[input])
        : Result.fail(`${name} must be one of ${Object.keys(LOG_LEVELS).join(", ")}.`)
  }),
  shutdownTimeoutMs: setting({
    env: "SHUTDOWN_TIMEOUT_MS",
    defaultValue: 20_000,
    fromText: numberText,
    decode: wholeNumber(0)
  }),
  /** The port of the `/metrics` listener on `HOST` (Metrics.ts); unset, none: `serve` only. */
  metricsPort: setting<Option.Option<number>>({
    env: "METRICS_PORT",
    serveOnly: true,
    defaultValue: Option.none(),
    fromText: numberText,
    decode: (input, name) => Result.map(wholeNumber(1, 65535)(input, name), Option.some)
  }),
  /** OpenTelemetry's OTLP/HTTP endpoint (`/v1/traces` is appended): traces are exported when set (Tracing.ts). */
  otlpEndpoint: setting<Option.Option<string>>({
    env: "OTEL_EXPORTER_OTLP_ENDPOINT",
    serveOnly: true,
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) => Result.map(httpUrl(input, name), Option.some)
  }),
  /** The traces URL itself, when it is not the endpoint's `/v1/traces`; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  otlpTracesEndpoint: setting<Option.Option<string>>({
    env: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    serveOnly: true,
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) => Result.map(httpUrl(input, name), Option.some)
  }),
  otelServiceName: setting({
    env: "OTEL_SERVICE_NAME",
    serveOnly: true,
    defaultValue: "gateway-control",
    fromText: asIs,
    decode: nonEmptyText
  }),
  otelTracesSampler: setting<TracesSamplerName>({
    env: "OTEL_TRACES_SAMPLER",
    serveOnly: true,
    defaultValue: "parentbased_always_on",
    fromText: asIs,
    decode: (input, name) =>
      typeof input === "string" && (TRACES_SAMPLERS as ReadonlyArray<string>).includes(input)
        ? Result.succeed(input as TracesSamplerName)
        : Result.fail(`${name} must be one of ${TRACES_SAMPLERS.join(", ")}.`)
  }),
  /** The share of traces kept by the `traceidratio` samplers, 0 to 1. */
  otelTracesSamplerArg: setting({
    env: "OTEL_TRACES_SAMPLER_ARG",
    serveOnly: true,
    defaultValue: 1,
    fromText: (text) => (/^\s*(?:0|1|0?\.\d+|1\.0*)\s*$/.test(text) ? Number(text) : text),
    decode: (input, name) =>
      typeof input === "number" && input >= 0 && input <= 1
        ? Result.succeed(input)
        : Result.fail(`${name} must be a number from 0 to 1.`)
  }),
  /** How long `/readyz` answers 503 after SIGTERM before the listener closes: `serve` only (App.ts). */
  shutdownDrainMs: setting({
    env: "SHUTDOWN_DRAIN_MS",
    serveOnly: true,
    defaultValue: 0,
    fromText: numberText,
    decode: wholeNumber(0)
  }),
  trustProxy: setting<TrustProxy>({ env: "TRUST_PROXY", defaultValue: false, fromText: asIs, decode: trustProxy }),
  masterKey: setting<Option.Option<Redacted.Redacted<Uint8Array>>>({
    env: "GATEWAY_MASTER_KEY",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) => Result.map(decodeMasterKey(input, name), Option.some)
  }),
  upstreamTimeoutMs: setting({
    env: "UPSTREAM_TIMEOUT_MS",
    defaultValue: 30_000,
    fromText: numberText,
    decode: wholeNumber(1)
  }),
  trustedCustomHosts: setting({ env: "TRUSTED_CUSTOM_HOSTS", defaultValue: [], fromText: commaList, decode: hostList }),
  providerBaseUrls: setting({ env: "PROVIDER_BASE_URLS", defaultValue: [], fromText: providerPairs, decode: baseUrls }),
  basePath: setting<Option.Option<string>>({ defaultValue: Option.none(), fromText: asIs, decode: basePath }),
  // MCP connections and health checks (McpConfig.ts reads the secrets file as the domain opens).
  /** How long one call to an MCP server (a test, a sync, a health check) may take. */
  mcpTimeoutMs: setting({ env: "MCP_TIMEOUT_MS", defaultValue: 10_000, fromText: numberText, decode: wholeNumber(1) }),
  /** How often the health checker runs (0: never): `serve` only, which runs the checker (App.ts `layerServe`). */
  mcpHealthIntervalMs: setting({
    env: "MCP_HEALTH_INTERVAL_MS",
    serveOnly: true,
    defaultValue: 60_000,
    fromText: numberText,
    decode: wholeNumber(0)
  }),
  /** How often every active integration's credential is tried at its provider (0: never): `serve` only. */
  credentialHealthIntervalMs: setting({
    env: "CREDENTIAL_HEALTH_INTERVAL_MS",
    serveOnly: true,
    defaultValue: 300_000,
    fromText: numberText,
    decode: wholeNumber(0)
  }),
  /** Failed health checks in a row that make an integration unhealthy: `serve` only, as the checker is. */
  mcpUnhealthyAfter: setting({
    env: "MCP_UNHEALTHY_AFTER",
    serveOnly: true,
    defaultValue: 3,
    fromText: numberText,
    decode: wholeNumber(1)
  }),
  /** The JSON file of the secrets integrations' `secret_mappings` may name. */
  mcpSecretsFile: setting<Option.Option<string>>({
    env: "MCP_SECRETS_FILE",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: (input, name) => Result.map(nonEmptyText(input, name), Option.some)
  }),
  /** How long a secret fetched through a secret reference is kept in the process (0: fetched at every use). */
  secretCacheTtlMs: setting({
    env: "SECRET_CACHE_TTL_MS",
    defaultValue: 30_000,
    fromText: numberText,
    decode: wholeNumber(0)
  }),
  /** A person's session unused this long ends (idle timeout; Sessions.ts). */
  sessionIdleTimeoutMs: setting({
    env: "SESSION_IDLE_TIMEOUT_MS",
    defaultValue: DEFAULT_SESSION_SETTINGS.idleTimeoutMs,
    fromText: numberText,
    decode: wholeNumber(1_000)
  }),
  /** A person's session ends this long after sign-in, whatever its use (absolute timeout). */
  sessionAbsoluteTimeoutMs: setting({
    env: "SESSION_ABSOLUTE_TIMEOUT_MS",
    defaultValue: DEFAULT_SESSION_SETTINGS.absoluteTimeoutMs,
    fromText: numberText,
    decode: wholeNumber(1_000)
  }),
  /** The web console at `/console`, and `/` redirecting there: `serve` only (App.ts `layerConsoleRoutes`). */
  consoleEnabled: setting({
    env: "CONSOLE_ENABLED",
    serveOnly: true,
    defaultValue: true,
    fromText: (text) => (text === "true" ? true : text === "false" ? false : text),
    decode: (input, name) =>
      typeof input === "boolean" ? Result.succeed(input) : Result.fail(`${name} must be true or false.`)
  }),
  redisUrl: setting<Option.Option<Redacted.Redacted<string>>>({
    env: "REDIS_URL",
    defaultValue: Option.none(),
    fromText: asIs,
    decode: secretUrl((url) => /^rediss?:\/\/./.test(url), "a Redis URL (redis://host:6379 or rediss://...)")
  }),
  ...signInSettings
}

export type SettingName = keyof typeof settings

/** Every setting, decoded. */
export type SettingValues = {
  readonly [K in SettingName]: (typeof settings)[K] extends Setting<infer A> ? A : never
}

/** Where settings come from: the environment, or embedding options. */
export interface SettingsSource {
  /** What was given for a setting, in the option's form; undefined when nothing was. */
  readonly read: (setting: SettingName) => unknown
  /** How messages name a setting: its variable, or its option. */
  readonly nameOf: (setting: SettingName) => string
}

const settingNames = Object.keys(settings) as ReadonlyArray<SettingName>

/** Every setting from the source, defaults for those not given; the first invalid one fails, named. */
export const decodeSettings = (source: SettingsSource): Result.Result<SettingValues, InvalidConfiguration> => {
  const values: Record<string, unknown> = {}
  for (const name of settingNames) {
    const definition: Setting<unknown> = settings[name]
    const input = source.read(name)
    const decoded = input === undefined
      ? Result.succeed(definition.defaultValue)
      : definition.decode(input, source.nameOf(name))
    if (Result.isFailure(decoded)) {
      return Result.fail(new InvalidConfiguration({ message: decoded.failure, setting: source.nameOf(name) }))
    }
    values[name] = decoded.success
  }
  // Each entry was decoded by its own setting just above.
  return Result.succeed(values as SettingValues)
}

/** Whether embedding takes the setting as an option. */
export const isOption = (name: string): name is SettingName =>
  settingNames.some((setting) => setting === name && settings[setting].serveOnly !== true)
