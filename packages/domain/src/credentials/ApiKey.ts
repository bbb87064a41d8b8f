/**
 * API keys: the stored record, its public view, and the pure parts of issuing one (format, masking).
 * The plaintext exists only at creation; the store keeps its SHA-256 digest.
 */
import { Schema } from "effect"
import { Email, Name } from "../shared/Rules.ts"
import { UsageLimits } from "./UsageLimits.ts"

export const ApiKeyType = Schema.Literals(["organisation-service", "workspace-service", "workspace-user"])
export type ApiKeyType = typeof ApiKeyType.Type
export const isApiKeyType = Schema.is(ApiKeyType)

export const ApiKeyStatus = Schema.Literals(["active", "revoked"])
export type ApiKeyStatus = typeof ApiKeyStatus.Type

/** The windows a request limit counts over: a second, a minute, an hour, a day. */
export const RateLimitUnit = Schema.Literals(["rps", "rpm", "rph", "rpd"])
export type RateLimitUnit = typeof RateLimitUnit.Type

/** Each unit's window in milliseconds. */
export const RATE_LIMIT_WINDOW_MS: Record<RateLimitUnit, number> = {
  rps: 1_000,
  rpm: 60_000,
  rph: 3_600_000,
  rpd: 86_400_000
}

/**
 * At most `value` requests of the key per `unit`: the one schema of a key's limit, which the API's create and
 * update bodies and the stores all use.
 */
export const RateLimit = Schema.Struct({
  type: Schema.Literal("requests"),
  unit: RateLimitUnit,
  value: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 }))
})
export type RateLimit = typeof RateLimit.Type

/** A key's limits: one a unit at most. */
export const RateLimits = Schema.Array(RateLimit)

/**
 * Portkey's automatic rotation of a key: every week or month, or once at an instant, and how long the old secret
 * then keeps working. Kept and returned; its `key_transition_period_ms` is the transition of the key's rotations
 * that ask for none. The gateway does not rotate keys by itself: a new secret no one receives would only lock
 * the key's holders out (Portkey mails it); the README says so.
 */
export const RotationPolicy = Schema.Struct({
  rotation_period: Schema.optionalKey(Schema.NullOr(Schema.Literals(["weekly", "monthly"]))),
  next_rotation_at: Schema.optionalKey(Schema.NullOr(Schema.String)),
  key_transition_period_ms: Schema.optionalKey(Schema.Int)
})
export type RotationPolicy = typeof RotationPolicy.Type

/** What a read of a key shows: never the digest, only the masked form of the key. */
export class ApiKey extends Schema.Class<ApiKey>("ApiKey")({
  id: Schema.String,
  type: ApiKeyType,
  name: Name,
  description: Schema.NullOr(Schema.String),
  organisation_id: Schema.String,
  workspace_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  scopes: Schema.Array(Schema.String),
  status: ApiKeyStatus,
  masked_key: Schema.String,
  created_at: Schema.String,
  /**
   * Who created the key: the user of the creating key (null when that key has no user), and the creating
   * key itself. Both null for keys issued without a caller (bootstrap) and for keys made before they were
   * recorded.
   */
  created_by_user_id: Schema.NullOr(Schema.String),
  created_by_api_key_id: Schema.NullOr(Schema.String),
  last_updated_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String),
  /** Requests the key may make per window; empty for none. */
  rate_limits: RateLimits,
  /** When the key last authenticated, to the minute; null when never (or not since this was recorded). */
  last_used_at: Schema.NullOr(Schema.String),
  /** When the key's secret was last rotated; null when never. */
  rotated_at: Schema.NullOr(Schema.String),
  /** Until when the secret before the last rotation still works; null when the key was never rotated. */
  transition_ends_at: Schema.NullOr(Schema.String),
  /** Portkey's usage limits (UsageLimits.ts): kept and returned, not counted against. */
  usage_limits: Schema.NullOr(UsageLimits),
  rotation_policy: Schema.NullOr(RotationPolicy),
  /** Whom Portkey mails about the key's usage; kept and returned, as this gateway sends no mail. */
  alert_emails: Schema.Array(Email)
}) {}

/**
 * The stored record: the public view plus the SHA-256 digest (hex) of the plaintext, and during a rotation's
 * transition the digest of the secret it replaced (null otherwise).
 */
export interface StoredApiKey {
  readonly key: ApiKey
  readonly digest: string
  readonly previousDigest: string | null
}

/** Recognisable prefix, so a leaked key is easy to spot in logs and by secret scanners. */
export const KEY_PREFIX = "gwc_"

/** Random bytes in a key: 256 bits, above the 192-bit floor. */
export const KEY_RANDOM_BYTES = 32

/** First 4 + `****` + last 4 characters: enough to tell keys apart, useless for guessing. */
export const maskKey = (plaintext: string): string =>
  plaintext.length <= 8 ? "****" : `${plaintext.slice(0, 4)}****${plaintext.slice(-4)}`

/** Keys have the prefix followed by unpadded base64url; anything else can be rejected without a lookup. */
export const hasKeyShape = (candidate: string): boolean =>
  candidate.startsWith(KEY_PREFIX) && candidate.length >= KEY_PREFIX.length + 32 && candidate.length <= 128
