/**
 * Trust policies: which tokens a workload may exchange for a short-lived credential (RFC 8693), and what that
 * credential may do. One schema for the entity; what callers give to create or replace one is derived from it,
 * in the API's casing.
 */
import { Schema, Struct } from "effect"
import { RateLimits } from "../credentials/ApiKey.ts"
import { Name } from "../shared/Rules.ts"

/** The longest a credential issued by token exchange may live: an hour. */
export const MAX_WORKLOAD_TTL_SECONDS = 3_600

/** A claim's required value: the token's claim equals it (or, for an array claim, contains it). */
export const ClaimValue = Schema.Union([Schema.String, Schema.Number, Schema.Boolean])
export type ClaimValue = typeof ClaimValue.Type

/** A public JSON Web Key as RFC 7517 writes it; its members are checked when a policy is written. */
export const PublicJwk = Schema.Record(Schema.String, Schema.Unknown)

/** A JWK set (RFC 7517 §5): the issuer's public keys, given instead of a `jwks_uri`. */
export const JwkSet = Schema.Struct({ keys: Schema.Array(PublicJwk) })
export type JwkSet = typeof JwkSet.Type

export class TrustPolicy extends Schema.Class<TrustPolicy>("TrustPolicy")({
  id: Schema.String,
  organisation_id: Schema.String,
  /** The workspace the issued credentials act in. */
  workspace_id: Schema.String,
  name: Name,
  /** The token's `iss`, exactly: an https URL (http only for a loopback host). */
  issuer: Schema.String,
  /** Where the issuer's keys are; null with `jwks` for static keys, or with neither for OIDC discovery. */
  jwks_uri: Schema.NullOr(Schema.String),
  jwks: Schema.NullOr(JwkSet),
  /** An `aud` the token must carry. */
  audience: Schema.String,
  /** The token's `sub`, exactly; or `subject_pattern`, a glob where `*` stands for any run of characters. */
  subject: Schema.NullOr(Schema.String),
  subject_pattern: Schema.NullOr(Schema.String),
  /** Other claims the token must carry, each with this value. */
  claims: Schema.Record(Schema.String, ClaimValue),
  /** What an issued credential may do: never more than the policy's writer holds. */
  scopes: Schema.Array(Schema.String),
  rate_limits: RateLimits,
  /** How long an issued credential lives, in seconds: 1 to 3600. */
  max_ttl_seconds: Schema.Int,
  created_at: Schema.String,
  created_by_user_id: Schema.NullOr(Schema.String),
  created_by_api_key_id: Schema.NullOr(Schema.String),
  last_updated_at: Schema.String
}) {}

/** A new policy (`POST`), or its replacement (`PUT`): the entity's own fields, the optional ones optional. */
export const CreateTrustPolicy = Schema.Struct({
  ...Struct.pick(TrustPolicy.fields, ["name", "issuer", "audience", "workspace_id", "scopes", "max_ttl_seconds"]),
  ...Struct.map(
    Struct.pick(TrustPolicy.fields, ["jwks_uri", "jwks", "subject", "subject_pattern"]),
    Schema.optionalKey
  ),
  claims: Schema.optionalKey(TrustPolicy.fields.claims),
  rate_limits: Schema.optionalKey(TrustPolicy.fields.rate_limits)
})
export type CreateTrustPolicy = typeof CreateTrustPolicy.Type

export const UpdateTrustPolicy = CreateTrustPolicy
export type UpdateTrustPolicy = CreateTrustPolicy
