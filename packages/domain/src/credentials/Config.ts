/**
 * A config: how to route a call (one provider target for fine-tuning listings), stored in a workspace under
 * a slug or given inline with a call. A stored config's provider key is encrypted at rest and never read back.
 */
import { Redacted, Schema, Struct } from "effect"
import { JsonObject } from "../prompts/Prompt.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { Name, Slug } from "../shared/Rules.ts"
import { checkConfig, type ConfigTargetSpec, PortkeyConfig } from "./PortkeyConfig.ts"
import { credentialFields } from "./VirtualKey.ts"

/** The fields of a config's creation body that hold a provider key. */
export const CONFIG_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [["config", "api_key"]]

/** The routing a config gives a fine-tuning listing: one provider target. */
export const ConfigTarget = Schema.Struct({
  provider: Schema.optionalKey(Schema.String),
  virtual_key: Schema.optionalKey(Schema.String),
  custom_host: Schema.optionalKey(Schema.String),
  request_timeout: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600_000 })))
})
export type ConfigTarget = typeof ConfigTarget.Type

export const ConfigStatus = Schema.Literals(["active", "archived"])

export class GatewayConfig extends Schema.Class<GatewayConfig>("GatewayConfig")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  name: Name,
  slug: Slug,
  /** The config as given (Portkey's schema, PortkeyConfig.ts), without its API key. */
  config: PortkeyConfig,
  /** The masked API key, when the config carries one. */
  masked_api_key: Schema.NullOr(Schema.String),
  /** 1 for the workspace's default config (one at most), else 0: Portkey's integer. */
  is_default: Schema.Literals([0, 1]),
  /** An archived config stays readable and is refused by calls. */
  status: ConfigStatus,
  /** The id of the config's newest version (ConfigVersion): every create and update makes one. */
  version_id: Schema.String,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** One version of a config: what it was named and said after a create or an update (never its API key). */
export class ConfigVersion extends Schema.Class<ConfigVersion>("ConfigVersion")({
  id: Schema.String,
  config_id: Schema.String,
  version: Schema.Int,
  name: Name,
  config: PortkeyConfig,
  created_at: Schema.String
}) {}

const isDefaultField = Schema.optionalKey(GatewayConfig.fields.is_default.annotate({
  description: "1: the workspace's default config (the previous default becomes 0)."
}))

/**
 * A stored config as a caller asks for one, in the API's casing. Portkey's document names the default flag
 * `isDefault`; its Node SDK sends every body key in snake case (`is_default`): both are taken.
 */
export const CreateConfig = Schema.Struct({
  ...credentialFields,
  config: JsonObject.annotate({
    description: "Portkey's config schema: routing (provider + api_key, virtual_key, custom_host, strategy with " +
      "targets) and retry, cache, request_timeout, override_params, guardrails, hooks. api_key at the top level only."
  }),
  is_default: isDefaultField,
  isDefault: isDefaultField
})
export type ConfigInput = typeof CreateConfig.Type

/** A new name, a new config replacing the stored one whole (its api_key included), or a new status. */
export const UpdateConfig = Schema.Struct({
  ...Struct.map(Struct.pick(CreateConfig.fields, ["name", "config"]), Schema.optionalKey),
  status: Schema.optionalKey(ConfigStatus)
})
export type ConfigChange = typeof UpdateConfig.Type

/** What a config, parsed and with its key decrypted, says about a call. */
export interface ResolvedConfig {
  /** The stored config's slug; undefined for an inline config, which the request itself supplies. */
  readonly slug: string | undefined
  readonly target: ConfigTarget
  readonly apiKey: Redacted.Redacted<string> | undefined
}

/** The slug `provider: "@slug"` names; undefined for a provider's name. Pure. */
export const providerSlugOf = (provider: string | undefined): string | undefined =>
  provider !== undefined && provider.startsWith("@") ? provider.slice(1) : undefined

/** The one target a config routes to: its top level, with its single target's fields over it. */
const soleTarget = (config: PortkeyConfig, param: string): ConfigTarget | InvalidRequest => {
  const { targets, ...top } = config
  if (targets !== undefined && targets.length > 1) {
    return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", `${param}.targets`)
  }
  const merged = { ...top, ...targets?.[0] }
  if (merged.targets !== undefined) {
    return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", `${param}.targets`)
  }
  // `provider: "@slug"` names a provider (or a virtual key) of the workspace, as `virtual_key` does.
  const named = providerSlugOf(merged.provider)
  if (named !== undefined && merged.virtual_key !== undefined) {
    return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", param)
  }
  const virtualKey = named ?? merged.virtual_key
  const target: ConfigTarget = {
    ...(merged.provider === undefined || named !== undefined ? {} : { provider: merged.provider }),
    ...(virtualKey === undefined ? {} : { virtual_key: virtualKey }),
    ...(merged.custom_host === undefined ? {} : { custom_host: merged.custom_host }),
    ...(merged.request_timeout === undefined ? {} : { request_timeout: merged.request_timeout })
  }
  if (target.provider !== undefined && target.virtual_key !== undefined) {
    return InvalidRequest.of("Maximum one target is allowed for fine_tuning requests", param)
  }
  return target
}

/**
 * A virtual key's provider key goes only to the host stored with that key (see ProviderChoice.ts): no level of
 * a config may pair them. Answers the first offending path.
 */
const pairedHost = (
  level: {
    readonly provider?: string
    readonly virtual_key?: string
    readonly custom_host?: string
    readonly targets?: ReadonlyArray<ConfigTargetSpec>
  },
  at: string
): string | undefined => {
  const storedKey = level.virtual_key !== undefined || providerSlugOf(level.provider) !== undefined
  if (storedKey && level.custom_host !== undefined) return `${at}.custom_host`
  for (const [i, target] of (level.targets ?? []).entries()) {
    const found = pairedHost(target, `${at}.targets[${i}]`)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * Parses a config object by Portkey's schema (PortkeyConfig.ts), with the rules of stored secrets: a virtual key
 * never with a custom host, a provider key only where one destination is known (a config with a single target).
 * `param` names the config in errors, and its fields below it (`config.custom_host`). Pure.
 */
export const parseConfig = (
  input: unknown,
  param = "config"
): { readonly config: PortkeyConfig; readonly apiKey: string | undefined } | InvalidRequest => {
  const checked = checkConfig(input, param)
  if (checked instanceof InvalidRequest) return checked
  const paired = pairedHost(checked.config, param)
  if (paired !== undefined) {
    return InvalidRequest.of(
      "custom_host cannot be combined with virtual_key or provider \"@slug\": their provider key is only sent to " +
        "the host stored with it. Set custom_host on the virtual key or the integration instead.",
      paired
    )
  }
  if (checked.apiKey !== undefined) {
    const target = soleTarget(checked.config, param)
    if (target instanceof InvalidRequest) {
      return InvalidRequest.of(
        "api_key is bound to one destination: a config with several targets names their keys by virtual_key.",
        `${param}.api_key`
      )
    }
  }
  return checked
}

/** The target a config routes a fine-tuning listing to; one at most. Pure. */
export const configTarget = (config: PortkeyConfig, param = "config"): ConfigTarget | InvalidRequest =>
  soleTarget(config, param)

/** A config a call gives inline, already parsed from JSON, as a call uses it. Pure. */
export const resolveInlineConfig = (config: unknown): ResolvedConfig | InvalidRequest => {
  const parsed = parseConfig(config)
  if (parsed instanceof InvalidRequest) return parsed
  const target = configTarget(parsed.config)
  if (target instanceof InvalidRequest) return target
  return {
    slug: undefined,
    target,
    apiKey: parsed.apiKey === undefined ? undefined : Redacted.make(parsed.apiKey)
  }
}
