/**
 * A config: how to route a call (one provider target for fine-tuning listings), stored in a workspace under
 * a slug or given inline with a call. A stored config's provider key is encrypted at rest and never read back.
 */
import { Option, Redacted, Schema, Struct } from "effect"
import { JsonObject } from "../prompts/Prompt.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { Name, Slug } from "../shared/Rules.ts"
import { credentialFields } from "./VirtualKey.ts"

/** The fields of a config's creation body that hold a provider key. */
export const CONFIG_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [["config", "api_key"]]

/** The routing a config gives: one provider target for fine-tuning listings. */
export const ConfigTarget = Schema.Struct({
  provider: Schema.optionalKey(Schema.String),
  virtual_key: Schema.optionalKey(Schema.String),
  custom_host: Schema.optionalKey(Schema.String),
  request_timeout: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600_000 })))
})
export type ConfigTarget = typeof ConfigTarget.Type

export class GatewayConfig extends Schema.Class<GatewayConfig>("GatewayConfig")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  name: Name,
  slug: Slug,
  /** The config without its API key. */
  config: ConfigTarget,
  /** The masked API key, when the config carries one. */
  masked_api_key: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** A stored config as a caller asks for one, in the API's casing. */
export const CreateConfig = Schema.Struct({
  ...credentialFields,
  config: JsonObject.annotate({
    description:
      "provider + api_key, or virtual_key; optionally custom_host and request_timeout (ms). One target at most."
  })
})
export type ConfigInput = typeof CreateConfig.Type

/** A new name, or a new config replacing the stored one whole (its api_key included). */
export const UpdateConfig = Schema.Struct(
  Struct.map(Struct.pick(CreateConfig.fields, ["name", "config"]), Schema.optionalKey)
)
export type ConfigChange = typeof UpdateConfig.Type

/** What a config, parsed and with its key decrypted, says about a call. */
export interface ResolvedConfig {
  /** The stored config's slug; undefined for an inline config, which the request itself supplies. */
  readonly slug: string | undefined
  readonly target: ConfigTarget
  readonly apiKey: Redacted.Redacted<string> | undefined
}

const CONFIG_FIELDS = new Set([
  "provider",
  "api_key",
  "virtual_key",
  "custom_host",
  "request_timeout",
  "targets",
  "strategy"
])
const decodeTarget = Schema.decodeUnknownOption(ConfigTarget)

/**
 * Parses a config object: at most one target, known fields only. `param` names the config in errors, and
 * its fields below it (`config.custom_host`). Pure.
 */
export const parseConfig = (
  config: unknown,
  param = "config"
): { readonly target: ConfigTarget; readonly apiKey: string | undefined } | InvalidRequest => {
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    return InvalidRequest.of("A config must be a JSON object.", param)
  }
  let body = config as Record<string, unknown>
  const unknown = Object.keys(body).filter((k) => !CONFIG_FIELDS.has(k))
  if (unknown.length > 0) {
    return InvalidRequest.of(
      `Unknown config fields: ${
        unknown.join(", ")
      }. Known: provider, api_key, virtual_key, custom_host, request_timeout.`,
      `${param}.${unknown[0]}`
    )
  }
  if (body.targets !== undefined) {
    if (!Array.isArray(body.targets) || body.targets.length === 0) {
      return InvalidRequest.of("targets must be a non-empty list.", `${param}.targets`)
    }
    if (body.targets.length > 1) {
      return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", `${param}.targets`)
    }
    const { targets, strategy: _strategy, ...rest } = body
    body = { ...rest, ...(targets[0] as Record<string, unknown>) }
  }
  const apiKey = body.api_key
  if (apiKey !== undefined && (typeof apiKey !== "string" || apiKey.length === 0)) {
    return InvalidRequest.of("api_key must be a non-empty string.", `${param}.api_key`)
  }
  const { api_key: _key, strategy: _s, targets: _t, ...fields } = body
  const target = decodeTarget(fields)
  if (Option.isNone(target)) {
    return InvalidRequest.of(
      "provider, virtual_key and custom_host are strings; request_timeout is 1 to 600000 ms.",
      param
    )
  }
  if (target.value.provider !== undefined && target.value.virtual_key !== undefined) {
    return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", param)
  }
  // A virtual key's provider key goes only to the host stored with that key (see ProviderChoice.ts).
  if (target.value.virtual_key !== undefined && target.value.custom_host !== undefined) {
    return InvalidRequest.of(
      "custom_host cannot be combined with virtual_key: a virtual key's provider key is only sent to the host " +
        "stored with the virtual key. Set custom_host on the virtual key instead.",
      `${param}.custom_host`
    )
  }
  return { target: target.value, apiKey: apiKey as string | undefined }
}

/** A config a call gives inline, already parsed from JSON, as a call uses it. Pure. */
export const resolveInlineConfig = (config: unknown): ResolvedConfig | InvalidRequest => {
  const parsed = parseConfig(config)
  if (parsed instanceof InvalidRequest) return parsed
  return {
    slug: undefined,
    target: parsed.target,
    apiKey: parsed.apiKey === undefined ? undefined : Redacted.make(parsed.apiKey)
  }
}
