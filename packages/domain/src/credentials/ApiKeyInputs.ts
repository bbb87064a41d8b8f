/**
 * What a caller gives to create, change or rotate an API key: one schema per use case, derived from the
 * key's own (`ApiKey`), in the API's casing. The HTTP API takes them as its payloads, and the use cases
 * (ApiKeys.ts, KeyChanges.ts) as their inputs, so no field is renamed between the two.
 */
import { Schema, Struct } from "effect"
import { Description } from "../shared/Rules.ts"
import { unsupportedFields } from "../shared/Unsupported.ts"
import { ApiKey } from "./ApiKey.ts"

/** Portkey's key fields the gateway does not act on: refused by name rather than dropped. */
export const UNSUPPORTED_KEY_FIELDS = ["defaults"] as const

export const CreateApiKey = Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["name", "scopes"]),
  description: Schema.optionalKey(Description),
  workspace_id: Schema.optionalKey(Schema.String),
  user_id: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.String),
  rate_limits: Schema.optionalKey(ApiKey.fields.rate_limits),
  usage_limits: Schema.optionalKey(Schema.NullOr(ApiKey.fields.usage_limits)),
  rotation_policy: Schema.optionalKey(ApiKey.fields.rotation_policy),
  alert_emails: Schema.optionalKey(ApiKey.fields.alert_emails),
  ...unsupportedFields(UNSUPPORTED_KEY_FIELDS)
})

export const RotateApiKey = Schema.Struct({
  transition_period_ms: Schema.optionalKey(
    Schema.Int.annotate({
      description: "How long the current secret keeps working, in ms: default the key's rotation_policy's " +
        "key_transition_period_ms, else 1800000 (30 minutes); 0 for not at all."
    })
  ),
  key_transition_period_ms: Schema.optionalKey(
    Schema.Int.annotate({ description: "Portkey's name of transition_period_ms; give one of the two." })
  )
})

/**
 * A new name, description or expiry (null clears either), scopes (only scopes the caller holds) or rate limits
 * (never the calling key's own).
 */
export const UpdateApiKey = Schema.Struct({
  ...Struct.map(Struct.pick(CreateApiKey.fields, ["name", "scopes"]), Schema.optionalKey),
  ...Struct.pick(CreateApiKey.fields, [
    "rate_limits",
    "usage_limits",
    "rotation_policy",
    "alert_emails",
    ...UNSUPPORTED_KEY_FIELDS
  ]),
  /** Portkey's: resets the usage counted against usage_limits. None is counted here, so `true` is refused. */
  reset_usage: Schema.optionalKey(Schema.Boolean),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String))
})
