/**
 * The MCP settings as the domain takes them (the settings table's `mcp*` rows, Settings.ts), and the secrets
 * integrations' `secret_mappings` may name, read once as the domain opens from `MCP_SECRETS_FILE`. A file that
 * cannot be used stops the start; a secret's value never appears in a message.
 */
import { type McpSecret, McpSecrets, type McpSettingsShape } from "@gateway-control/domain"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { readFileSync } from "node:fs"
import type { AppConfig } from "./AppConfig.ts"
import { InvalidConfiguration } from "./Settings.ts"

export interface McpConfig extends McpSettingsShape {
  /** Secret references by id, from `MCP_SECRETS_FILE`; empty without one. */
  readonly secrets: ReadonlyMap<string, McpSecret>
  /** How long a secret fetched through a secret reference is kept: `SECRET_CACHE_TTL_MS`. */
  readonly secretCacheTtlMs: number
}

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

const invalid = (message: string) => new InvalidConfiguration({ message, setting: "MCP_SECRETS_FILE" })

/** The secrets of the file at `path`, if one is set. */
export const loadMcpSecrets = (
  path: Option.Option<string>
): Effect.Effect<ReadonlyMap<string, McpSecret>, InvalidConfiguration> =>
  Option.match(path, {
    onNone: () => Effect.succeed(new Map()),
    onSome: (file) =>
      Effect.gen(function*() {
        const text = yield* Effect.try({
          try: () => readFileSync(file, "utf8"),
          catch: (error) =>
            invalid(
              `The MCP secrets file (MCP_SECRETS_FILE) ${file} cannot be read: ${
                error instanceof Error ? error.message : error
              }`
            )
        })
        // Schema's message could quote the file; this one says where to look instead.
        const entries = yield* Effect.mapError(
          Schema.decodeUnknownEffect(SecretsFile)(text),
          () =>
            invalid(
              `The MCP secrets file (MCP_SECRETS_FILE) ${file} must be a JSON object of ` +
                `{"<reference id>": {"value": "<text or JSON object>", "hosts": ["host", "host:port"]}}.`
            )
        )
        return new Map(
          Object.entries(entries).map(([id, secret]) => [id, {
            value: Redacted.make(secret.value),
            hosts: secret.hosts.map((host) => host.toLowerCase())
          }])
        )
      })
  })

/** The MCP settings of a configuration, with its secrets read. */
export const loadMcpConfig = (
  config: Pick<
    AppConfig,
    "mcpTimeoutMs" | "mcpHealthIntervalMs" | "mcpUnhealthyAfter" | "mcpSecretsFile" | "secretCacheTtlMs"
  >
): Effect.Effect<McpConfig, InvalidConfiguration> =>
  Effect.map(loadMcpSecrets(config.mcpSecretsFile), (secrets) => ({
    timeoutMs: config.mcpTimeoutMs,
    healthIntervalMs: config.mcpHealthIntervalMs,
    unhealthyAfter: config.mcpUnhealthyAfter,
    secretCacheTtlMs: config.secretCacheTtlMs,
    secrets
  }))

/** `McpSecrets` over the secrets read at start. */
export const layerMcpSecrets = (secrets: ReadonlyMap<string, McpSecret>): Layer.Layer<McpSecrets> =>
  Layer.succeed(McpSecrets)(
    McpSecrets.of({ resolve: (id) => Effect.sync(() => Option.fromUndefinedOr(secrets.get(id))) })
  )
