/**
 * The checks on what a caller gives for a key, shared by creating, updating and rotating one: each fails with
 * `InvalidRequest` naming the field, or `UnknownScopes`.
 */
import { Effect, Schema } from "effect"
import { isScope, type Scope, unknownScopes } from "../access/Scopes.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { Email } from "../shared/Rules.ts"
import { RateLimit, type RotationPolicy } from "./ApiKey.ts"

/** Scopes asked for that do not exist (field `scopes`); an adapter says where its callers find the known ones. */
export class UnknownScopes extends Schema.TaggedError<UnknownScopes>()("UnknownScopes", {
  scopes: Schema.Array(Schema.String)
}) {
  override get message() {
    return `Unknown scopes: ${this.scopes.join(", ")}.`
  }
}

/** How long a rotated key's old secret keeps working when the caller does not say: 30 minutes. */
export const DEFAULT_TRANSITION_PERIOD_MS = 30 * 60_000

/** The longest transition a rotation may ask for: 7 days. */
export const MAX_TRANSITION_PERIOD_MS = 7 * 24 * 3_600_000

/** Scopes as asked for: at least one, every one known. */
export const checkScopes = Effect.fnUntraced(function*(scopes: ReadonlyArray<string>) {
  if (scopes.length === 0) return yield* InvalidRequest.of("scopes must name at least one scope.", "scopes")
  const unknown = unknownScopes(scopes)
  if (unknown.length > 0) return yield* new UnknownScopes({ scopes: unknown })
  return [...new Set(scopes.filter(isScope))] as ReadonlyArray<Scope>
})

/** An expiry as asked for: an ISO 8601 date-time in the future, normalised to UTC with milliseconds. */
export const checkExpiry = Effect.fnUntraced(function*(expiresAt: string) {
  const parsed = Date.parse(expiresAt)
  if (!/^\d{4}-\d{2}-\d{2}T/.test(expiresAt) || Number.isNaN(parsed)) {
    return yield* InvalidRequest.of("expires_at must be an ISO 8601 date-time.", "expires_at")
  }
  const normalised = new Date(parsed).toISOString()
  if (normalised <= (yield* nowIso)) return yield* InvalidRequest.of("expires_at must be in the future.", "expires_at")
  return normalised
})

const isRateLimit = Schema.is(RateLimit)

/** Rate limits as asked for: each well-formed, one a unit at most. */
export const checkRateLimits = (limits: ReadonlyArray<RateLimit>): Effect.Effect<void, InvalidRequest> => {
  const seen = new Set<string>()
  for (const [i, limit] of limits.entries()) {
    if (!isRateLimit(limit)) {
      return Effect.fail(InvalidRequest.of(
        "A rate limit is {type: 'requests', unit: 'rps' | 'rpm' | 'rph' | 'rpd', value: a whole number from 1}.",
        `rate_limits[${i}]`
      ))
    }
    if (seen.has(limit.unit)) {
      return Effect.fail(InvalidRequest.of(`rate_limits has two limits per '${limit.unit}'.`, `rate_limits[${i}]`))
    }
    seen.add(limit.unit)
  }
  return Effect.void
}

/** A transition period as asked for: whole milliseconds, from 0 (none) to `MAX_TRANSITION_PERIOD_MS`. */
export const checkTransitionPeriod = (
  ms: number,
  param = "transition_period_ms",
  minimum = 0
): Effect.Effect<number, InvalidRequest> =>
  Number.isSafeInteger(ms) && ms >= minimum && ms <= MAX_TRANSITION_PERIOD_MS
    ? Effect.succeed(ms)
    : Effect.fail(InvalidRequest.of(
      `${param} must be a whole number of milliseconds from ${minimum} to ${MAX_TRANSITION_PERIOD_MS}.`,
      param
    ))

/** Why a key's Portkey `defaults` (metadata, a pinned config) are refused. */
export const KEY_DEFAULTS_WHY = "keys carry no default metadata or config here (send x-portkey-config with a call)."

/** Portkey's shortest transition of an automatic rotation's policy: 30 minutes. */
export const MIN_POLICY_TRANSITION_MS = 30 * 60_000

/**
 * A rotation policy as asked for: a period or an instant (not both, as Portkey has it), an instant in the future,
 * and a transition from 30 minutes (Portkey's minimum) to ours at most.
 */
export const checkRotationPolicy = Effect.fnUntraced(function*(policy: RotationPolicy) {
  const hasPeriod = policy.rotation_period != null
  const hasInstant = policy.next_rotation_at != null
  if (hasPeriod === hasInstant) {
    return yield* InvalidRequest.of(
      "rotation_policy needs one of rotation_period and next_rotation_at.",
      "rotation_policy"
    )
  }
  const next = policy.next_rotation_at == null
    ? policy.next_rotation_at
    : yield* checkInstant(policy.next_rotation_at, "rotation_policy.next_rotation_at")
  if (policy.key_transition_period_ms !== undefined) {
    yield* checkTransitionPeriod(
      policy.key_transition_period_ms,
      "rotation_policy.key_transition_period_ms",
      MIN_POLICY_TRANSITION_MS
    )
  }
  return next === undefined ? policy : { ...policy, next_rotation_at: next }
})

const isEmail = Schema.is(Email)

/** Alert emails as asked for: each an email, lower-cased, once. */
export const checkAlertEmails = (
  emails: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, InvalidRequest> => {
  const bad = emails.findIndex((email) => !isEmail(email))
  return bad >= 0
    ? Effect.fail(InvalidRequest.of("alert_emails must hold email addresses.", `alert_emails[${bad}]`))
    : Effect.succeed([...new Set(emails.map((email) => email.trim().toLowerCase()))])
}

/** A `last_used_before` filter: an ISO 8601 date-time. */
export const checkInstant = (value: string, param: string): Effect.Effect<string, InvalidRequest> => {
  const parsed = Date.parse(value)
  return /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(parsed)
    ? Effect.succeed(new Date(parsed).toISOString())
    : Effect.fail(InvalidRequest.of(`${param} must be an ISO 8601 date-time.`, param))
}
