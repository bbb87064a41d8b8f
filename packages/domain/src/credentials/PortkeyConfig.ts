/**
 * Portkey's config schema, whole: the routing a gateway config describes (a provider, a virtual key or a
 * custom host; `strategy` with nested `targets`), and what it asks of each call (`retry`, `cache`,
 * `override_params`, `request_timeout`, guardrails and hooks, `forward_headers`). A stored config is checked
 * against it and kept verbatim; the control plane itself acts on the target fields only (for fine-tuning
 * listings, ProviderChoice.ts), and returns the rest for the data plane that routes calls.
 */
import { Schema, SchemaIssue } from "effect"
import { JsonObject } from "../prompts/Prompt.ts"
import { InvalidRequest } from "../shared/Errors.ts"

const StatusCodes = Schema.Array(Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 })))

export const RetrySettings = Schema.Struct({
  attempts: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10 })),
  on_status_codes: Schema.optionalKey(StatusCodes),
  use_retry_after_header: Schema.optionalKey(Schema.Boolean)
})

export const CacheSettings = Schema.Struct({
  mode: Schema.Literals(["simple", "semantic"]),
  max_age: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
})

export const RoutingStrategy = Schema.Struct({
  mode: Schema.Literals(["single", "loadbalance", "fallback", "conditional"]),
  on_status_codes: Schema.optionalKey(StatusCodes),
  conditions: Schema.optionalKey(Schema.Array(JsonObject)),
  default: Schema.optionalKey(Schema.String)
})

const Checks = Schema.Array(Schema.Union([Schema.String, JsonObject]))

/** What the whole config and each of its targets may say. */
const routingFields = {
  provider: Schema.optionalKey(Schema.String),
  virtual_key: Schema.optionalKey(Schema.String),
  custom_host: Schema.optionalKey(Schema.String),
  request_timeout: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 600_000 }))),
  override_params: Schema.optionalKey(JsonObject),
  forward_headers: Schema.optionalKey(Schema.Array(Schema.String)),
  retry: Schema.optionalKey(RetrySettings),
  cache: Schema.optionalKey(CacheSettings),
  strategy: Schema.optionalKey(RoutingStrategy),
  input_guardrails: Schema.optionalKey(Checks),
  output_guardrails: Schema.optionalKey(Checks),
  before_request_hooks: Schema.optionalKey(Schema.Array(JsonObject)),
  after_request_hooks: Schema.optionalKey(Schema.Array(JsonObject))
}

/** A target of a strategy: routing of its own, a weight (loadbalance), a name (conditional), more targets. */
export interface ConfigTargetSpec extends Schema.Schema.Type<Schema.Struct<typeof routingFields>> {
  readonly name?: string
  readonly weight?: number
  readonly targets?: ReadonlyArray<ConfigTargetSpec>
}

const Targets = Schema.Array(Schema.suspend((): Schema.Codec<ConfigTargetSpec> => ConfigTargetSpecSchema)).check(
  Schema.isMinLength(1)
)

const ConfigTargetSpecSchema = Schema.Struct({
  ...routingFields,
  name: Schema.optionalKey(Schema.String),
  weight: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0))),
  targets: Schema.optionalKey(Targets)
})

/** A stored config: Portkey's schema without its provider key, which is kept apart, encrypted. */
export const PortkeyConfig = Schema.Struct({ ...routingFields, targets: Schema.optionalKey(Targets) })
export type PortkeyConfig = typeof PortkeyConfig.Type

/** A config as a request gives it: a provider key (`api_key`) at its top level, at most. */
const ConfigRequest = Schema.Struct({
  ...PortkeyConfig.fields,
  api_key: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1)))
})

const decodeRequest = Schema.decodeUnknownResult(ConfigRequest, { onExcessProperty: "error" })
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** `param` then the path: `config.targets[1].retry.attempts`. */
const paramOf = (param: string, path: ReadonlyArray<unknown>) =>
  path.reduce<string>(
    (out, segment) => {
      const key = typeof segment === "object" && segment !== null && "key" in segment ? segment.key : segment
      return typeof key === "number" ? `${out}[${key}]` : `${out}.${String(key)}`
    },
    param
  )

/** Whether a provider key sits below the top level, where it could not be kept apart from the config. */
const nestedKeyPath = (targets: ReadonlyArray<unknown> | undefined, at: string): string | undefined => {
  for (const [i, target] of (targets ?? []).entries()) {
    if (typeof target !== "object" || target === null) continue
    const path = `${at}.targets[${i}]`
    if ("api_key" in target) return `${path}.api_key`
    const deeper = nestedKeyPath((target as { targets?: ReadonlyArray<unknown> }).targets, path)
    if (deeper !== undefined) return deeper
  }
  return undefined
}

/**
 * A config checked against Portkey's schema, its provider key apart; 400 naming the first offending field
 * below `param` (`config.retry.attempts`). A provider key is taken at the top level only: it is stored
 * encrypted and bound to one destination, so a target names its key by `virtual_key`. Pure.
 */
export const checkConfig = (
  config: unknown,
  param = "config"
): { readonly config: PortkeyConfig; readonly apiKey: string | undefined } | InvalidRequest => {
  if (config === null || typeof config !== "object" || Array.isArray(config)) {
    return InvalidRequest.of("A config must be a JSON object.", param)
  }
  const nested = nestedKeyPath((config as { targets?: ReadonlyArray<unknown> }).targets, param)
  if (nested !== undefined) {
    return InvalidRequest.of(
      "api_key is taken at the config's top level only (stored encrypted, for one destination); " +
        "a target names a stored key by virtual_key.",
      nested
    )
  }
  const decoded = decodeRequest(config)
  if (decoded._tag === "Failure") {
    const first = formatter(decoded.failure.issue).issues[0]
    const at = paramOf(param, first?.path ?? [])
    return InvalidRequest.of(`${at}: ${first?.message ?? "invalid"}`, at)
  }
  const { api_key, ...rest } = decoded.success
  return { config: rest, apiKey: api_key }
}
