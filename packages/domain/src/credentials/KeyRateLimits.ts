/**
 * Request limits per key, counted by Effect's `RateLimiter` (fixed windows) on whichever store the composition
 * gives it: in memory, each process counts alone; on Redis, processes sharing it count together. A key without
 * limits asks nothing of the limiter.
 */
import { Duration, Effect, Schema } from "effect"
import { RateLimiter } from "effect/persistence"
import { RATE_LIMIT_WINDOW_MS, type RateLimit, RateLimitUnit } from "./ApiKey.ts"

/** The key made more requests than one of its limits allows in its window. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  /** The limit exceeded: requests per `unit`. */
  limit: Schema.Int,
  unit: RateLimitUnit,
  /** How long until a request of the key may succeed again. */
  retryAfterMs: Schema.Int
}) {
  override get message() {
    return `This API key is limited to ${this.limit} requests per ${UNIT_NAMES[this.unit]}; ` +
      `retry in ${Math.max(1, Math.ceil(this.retryAfterMs / 1000))} s.`
  }
}

const UNIT_NAMES: Record<RateLimitUnit, string> = { rps: "second", rpm: "minute", rph: "hour", rpd: "day" }

/** What a request of a limited key left of its tightest limit. */
export interface RateLimitStatus {
  readonly limit: number
  readonly unit: RateLimitUnit
  readonly remaining: number
  /** How long until the window the request counted in starts over. */
  readonly resetAfterMs: number
}

const tighter = (a: RateLimitStatus, b: RateLimitStatus) =>
  a.remaining !== b.remaining ? (a.remaining < b.remaining ? a : b) : a.resetAfterMs >= b.resetAfterMs ? a : b

/**
 * Counts one request of the key against each of its limits: the tightest one's status, or `RateLimited`. When
 * the limiter's store cannot be reached the request goes through (logged): limits protect the service, and an
 * unreachable counter must not take every limited key down with it.
 */
export const makeKeyRateLimits = Effect.gen(function*() {
  const limiter = yield* RateLimiter.RateLimiter

  const consume = (keyId: string, rateLimit: RateLimit): Effect.Effect<RateLimitStatus | undefined, RateLimited> =>
    limiter.consume({
      algorithm: "fixed-window",
      onExceeded: "fail",
      key: `api-key:${keyId}:${rateLimit.unit}`,
      window: RATE_LIMIT_WINDOW_MS[rateLimit.unit],
      limit: rateLimit.value
    }).pipe(
      Effect.map((result): RateLimitStatus => ({
        limit: rateLimit.value,
        unit: rateLimit.unit,
        remaining: Math.max(0, result.remaining),
        resetAfterMs: Duration.toMillis(result.resetAfter)
      })),
      Effect.catch((error) =>
        error.reason._tag === "RateLimitExceeded"
          ? Effect.fail(
            new RateLimited({
              limit: rateLimit.value,
              unit: rateLimit.unit,
              retryAfterMs: Math.ceil(Duration.toMillis(error.reason.retryAfter))
            })
          )
          : Effect.as(
            Effect.logWarning("rate limits: the counter store failed; the request goes through uncounted").pipe(
              Effect.annotateLogs({ reason: error.reason.message })
            ),
            undefined
          )
      )
    )

  return (keyId: string, limits: ReadonlyArray<RateLimit>): Effect.Effect<RateLimitStatus | undefined, RateLimited> =>
    Effect.map(
      Effect.forEach(limits, (rateLimit) => consume(keyId, rateLimit)),
      (statuses) => {
        let tightest: RateLimitStatus | undefined
        for (const status of statuses) {
          if (status !== undefined) tightest = tightest === undefined ? status : tighter(tightest, status)
        }
        return tightest
      }
    )
})
