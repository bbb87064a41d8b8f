/**
 * Portkey's usage limits, on API keys and virtual keys: a credit (cost or tokens) a key may spend, when to warn,
 * and when the count starts over. The control plane keeps and returns them; it counts no usage against them,
 * as model calls (where cost and tokens arise) do not pass through it. The README says so.
 */
import { Effect, Schema } from "effect"
import { InvalidRequest } from "../shared/Errors.ts"

const PositiveInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))

export const UsageLimits = Schema.Struct({
  type: Schema.optionalKey(Schema.Literals(["cost", "tokens"])),
  credit_limit: Schema.optionalKey(PositiveInt),
  alert_threshold: Schema.optionalKey(PositiveInt),
  periodic_reset: Schema.optionalKey(Schema.NullOr(Schema.Literals(["monthly", "weekly"]))),
  periodic_reset_days: Schema.optionalKey(
    Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 365 })))
  ),
  next_usage_reset_at: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type UsageLimits = typeof UsageLimits.Type

/** Portkey's rules between the fields: one way of resetting, a threshold within the limit, a real instant. */
export const checkUsageLimits = Effect.fnUntraced(function*(limits: UsageLimits, param = "usage_limits") {
  if (limits.periodic_reset != null && limits.periodic_reset_days != null) {
    return yield* InvalidRequest.of(
      `${param}: periodic_reset and periodic_reset_days exclude each other; give one.`,
      `${param}.periodic_reset_days`
    )
  }
  if (
    limits.alert_threshold !== undefined && limits.credit_limit !== undefined &&
    limits.alert_threshold > limits.credit_limit
  ) {
    return yield* InvalidRequest.of(
      `${param}: alert_threshold may not exceed credit_limit.`,
      `${param}.alert_threshold`
    )
  }
  if (limits.next_usage_reset_at != null) {
    const at = limits.next_usage_reset_at
    if (!/^\d{4}-\d{2}-\d{2}T/.test(at) || Number.isNaN(Date.parse(at))) {
      return yield* InvalidRequest.of(
        `${param}.next_usage_reset_at must be an ISO 8601 date-time.`,
        `${param}.next_usage_reset_at`
      )
    }
    return { ...limits, next_usage_reset_at: new Date(Date.parse(at)).toISOString() }
  }
  return limits
})
