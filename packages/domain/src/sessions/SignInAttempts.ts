/**
 * Attempt limiting for sign-in by password and by second factor: a bounded number of failures per account
 * email and per client address in a window, counted by Effect's `RateLimiter` on whichever store the
 * composition gives it (in memory, each process counts alone; on Redis, every process sharing it counts
 * together), as keys' rate limits are.
 *
 * Each attempt reserves one failure on both counters before anything is checked (so a flood of concurrent
 * attempts cannot all pass a check made before the first of them failed), and gives it back when it succeeds:
 * only failures stay counted. An email is counted whether or not an account has it, under its SHA-256, so a
 * limit reached answers alike for known and unknown emails, and the counter store never holds an email.
 */
import { Context, Duration, Effect, Schema } from "effect"
import { RateLimiter } from "effect/persistence"
import { RequestContext } from "../audit/RequestContext.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"

/** A bound: at most `failures` failed attempts in `windowMs`. */
export interface AttemptBound {
  readonly failures: number
  readonly windowMs: number
}

export interface SignInLimitsShape {
  /** Failures allowed per account email (whether an account has it or not). */
  readonly perAccount: AttemptBound
  /** Failures allowed per client address (the socket's, or the one trusted proxies name). */
  readonly perClient: AttemptBound
}

/** 5 failures per email and 20 per client address in 15 minutes. */
export const DEFAULT_SIGN_IN_LIMITS: SignInLimitsShape = {
  perAccount: { failures: 5, windowMs: 900_000 },
  perClient: { failures: 20, windowMs: 900_000 }
}

export const SignInLimits = Context.Reference<SignInLimitsShape>("@gateway-control/domain/SignInLimits", {
  defaultValue: () => DEFAULT_SIGN_IN_LIMITS
})

/** Too many failed sign-in attempts for the email or from the address: refused until `retryAfterMs` passed. */
export class TooManyAttempts extends Schema.TaggedError<TooManyAttempts>()("TooManyAttempts", {
  retryAfterMs: Schema.Int
}) {
  override get message() {
    return "Too many failed sign-in attempts for this account or from this address; retry in " +
      `${Math.max(1, Math.ceil(this.retryAfterMs / 1000))} s.`
  }
}

/** One attempt's reserved failures: `succeeded` gives them back. */
export interface AttemptReservation {
  readonly succeeded: Effect.Effect<void>
}

interface Counter {
  readonly key: string
  readonly bound: AttemptBound
}

export const makeSignInAttempts = Effect.gen(function*() {
  const limiter = yield* RateLimiter.RateLimiter
  const crypto = yield* PlatformCrypto

  const consume = (counter: Counter, tokens: number) =>
    limiter.consume({
      algorithm: "fixed-window",
      onExceeded: "fail",
      key: counter.key,
      window: counter.bound.windowMs,
      limit: counter.bound.failures,
      tokens
    })

  /** Gives a reserved failure back. A counter store that fails is logged: the failure then stays counted. */
  const release = (counter: Counter) =>
    consume(counter, -1).pipe(
      Effect.asVoid,
      Effect.catch((error) =>
        Effect.logWarning("sign-in attempts: the counter store failed giving an attempt back").pipe(
          Effect.annotateLogs({ reason: error.reason.message })
        )
      )
    )

  /**
   * Reserves one failure on the counter, or `TooManyAttempts` when its failures are used up. When the counter
   * store cannot be reached the attempt goes through uncounted (logged), as keys' requests do: an unreachable
   * Redis must not stop every person signing in.
   */
  const reserveOn = (counter: Counter): Effect.Effect<boolean, TooManyAttempts> =>
    consume(counter, 1).pipe(
      Effect.as(true),
      Effect.catch((error) =>
        error.reason._tag === "RateLimitExceeded"
          ? Effect.fail(
            new TooManyAttempts({ retryAfterMs: Math.ceil(Duration.toMillis(error.reason.retryAfter)) })
          )
          : Effect.as(
            Effect.logWarning("sign-in attempts: the counter store failed; the attempt goes through uncounted").pipe(
              Effect.annotateLogs({ reason: error.reason.message })
            ),
            false
          )
      )
    )

  /**
   * Reserves a failure for an attempt on the account `email` from the request's client address: refused with
   * `TooManyAttempts` when either has no failure left. The client address is counted first, so a flood from one
   * address does not use up the accounts it names.
   */
  const reserve = (email: string): Effect.Effect<AttemptReservation, TooManyAttempts> =>
    Effect.gen(function*() {
      const limits = yield* SignInLimits
      const { clientIp } = yield* RequestContext
      const counters: Array<Counter> = []
      if (clientIp !== null) counters.push({ key: `sign-in:client:${clientIp}`, bound: limits.perClient })
      counters.push({
        key: `sign-in:account:${crypto.sha256Hex(email.trim().toLowerCase())}`,
        bound: limits.perAccount
      })
      const reserved: Array<Counter> = []
      for (const counter of counters) {
        const counted = yield* reserveOn(counter).pipe(
          // A refused attempt checks nothing: what it reserved on the counters before is given back.
          Effect.tapError(() => Effect.forEach(reserved, release, { discard: true }))
        )
        if (counted) reserved.push(counter)
      }
      return { succeeded: Effect.forEach(reserved, release, { discard: true }) }
    })

  return { reserve }
})

export type SignInAttempts = Effect.Success<typeof makeSignInAttempts>
