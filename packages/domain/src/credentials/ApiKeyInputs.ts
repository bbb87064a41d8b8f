/**
 * What a caller gives to create, change or rotate an API key: one schema per use case, derived from the
 * key's own (`ApiKey`), in the API's casing. The HTTP API takes them as its payloads, and the use cases
 * (ApiKeys.ts, KeyChanges.ts) as their inputs, so no field is renamed between the two.
 */
import { Schema, Struct } from "effect"
import { Description } from "../shared/Rules.ts"
import { ApiKey } from "./ApiKey.ts"

export const CreateApiKey = Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["name", "scopes"]),
  description: Schema.optionalKey(Description),
  workspace_id: Schema.optionalKey(Schema.String),
  user_id: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.String),
  rate_limits: Schema.optionalKey(ApiKey.fields.rate_limits)
})

export const RotateApiKey = Schema.Struct({
  transition_period_ms: Schema.optionalKey(
    Schema.Int.annotate({
      description: "How long the current secret keeps working, in ms: default 1800000 (30 minutes), 0 for not at all."
    })
  )
})

/**
 * A new name, description or expiry (null clears either), scopes (only scopes the caller holds) or rate limits
 * (never the calling key's own).
 */
export const UpdateApiKey = Schema.Struct({
  ...Struct.map(Struct.pick(CreateApiKey.fields, ["name", "scopes"]), Schema.optionalKey),
  rate_limits: CreateApiKey.fields.rate_limits,
  description: Schema.optionalKey(Schema.NullOr(Description)),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String))
})
