/**
 * The MCP settings, apart from the rest of the configuration: connection timeout, health checks, and the
 * secrets integrations' `secret_mappings` may name, read once at start from `MCP_SECRETS_FILE`. An invalid
 * value stops the process with a message naming the variable; a secret's value never appears in one.
 */
import { type McpSecret, McpSecrets, type McpSettingsShape } from "@gateway-control/domain"
import { Config, Effect, Layer, Option, Redacted, Schema } from "effect"
import { readFileSync } from "node:fs"

export interface McpConfig extends McpSettingsShape {
  /** Secret references by id, from `MCP_SECRETS_FILE`; empty without one. */
  readonly secrets: ReadonlyMap<string, McpSecret>
}

/** A problem with an MCP setting, in words for the operator. */
export class InvalidMcpConfiguration extends Schema.TaggedError<InvalidMcpConfiguration>()(
  "InvalidMcpConfiguration",
  { message: Schema.String }
) {}

export const McpRawConfig = Config.all({
  timeoutMs: Config.Int("MCP_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
  healthIntervalMs: Config.Int("MCP_HEALTH_INTERVAL_MS").pipe(Config.withDefault(60_000)),
  unhealthyAfter: Config.Int("MCP_UNHEALTHY_AFTER").pipe(Config.withDefault(3)),
  secretsFile: Config.option(Config.String("MCP_SECRETS_FILE"))
})

/** `{ "<reference id>": { "value": "<text>" | { … }, "hosts": ["host", "host:port", …] } }` */
const SecretsFile = Schema.fromJsonString(
  Schema.Record(
    Schema.String,
    Schema.Struct({
      value: Schema.Union([Schema.String, Schema.Record(Schema.String, Schema.Unknown)]),
      hosts: Schema.Array(Schema.String.check(Schema.isMinLength(1)))
    })
  )
)

const readSecrets = (path: string) =>
  Effect.gen(function*() {
    const text = yield* Effect.try({
      try: () => readFileSync(path, "utf8"),
      catch: (error) =>
        new InvalidMcpConfiguration({
          message: `MCP_SECRETS_FILE ${path} cannot be read: ${error instanceof Error ? error.message : error}`
        })
    })
    // Schema's message could quote the file; this one says where to look instead.
    const entries = yield* Effect.mapError(
      Schema.decodeUnknownEffect(SecretsFile)(text),
      () =>
        new InvalidMcpConfiguration({
          message: `MCP_SECRETS_FILE ${path} must be a JSON object of ` +
            `{"<reference id>": {"value": "<text or JSON object>", "hosts": ["host", "host:port"]}}.`
        })
    )
    return new Map(
      Object.entries(entries).map(([id, secret]) => [id, {
        value: Redacted.make(secret.value),
        hosts: secret.hosts.map((host) => host.toLowerCase())
      }])
    )
  })

/** The MCP settings from the environment, checked. */
export const loadMcpConfig = Effect.gen(function*() {
  const raw = yield* Effect.mapError(
    McpRawConfig,
    (error) => new InvalidMcpConfiguration({ message: `Invalid configuration: ${error.message}` })
  )
  if (raw.timeoutMs < 1) return yield* new InvalidMcpConfiguration({ message: "MCP_TIMEOUT_MS must be at least 1." })
  if (raw.healthIntervalMs < 0) {
    return yield* new InvalidMcpConfiguration({ message: "MCP_HEALTH_INTERVAL_MS must be 0 (off) or more." })
  }
  if (raw.unhealthyAfter < 1) {
    return yield* new InvalidMcpConfiguration({ message: "MCP_UNHEALTHY_AFTER must be at least 1." })
  }
  const secrets = Option.isSome(raw.secretsFile) ? yield* readSecrets(raw.secretsFile.value) : new Map()
  return {
    timeoutMs: raw.timeoutMs,
    healthIntervalMs: raw.healthIntervalMs,
    unhealthyAfter: raw.unhealthyAfter,
    secrets
  } satisfies McpConfig
})

/** `McpSecrets` over the secrets read at start. */
export const layerMcpSecrets = (secrets: ReadonlyMap<string, McpSecret>): Layer.Layer<McpSecrets> =>
  Layer.succeed(McpSecrets)(
    McpSecrets.of({ resolve: (id) => Effect.sync(() => Option.fromUndefinedOr(secrets.get(id))) })
  )
