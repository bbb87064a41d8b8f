/**
 * The idempotency of creates: whether a request carrying an `Idempotency-Key` runs, replays the answer of the
 * first request with that key, or is refused. The use case a request runs stays the one that authorises and
 * audits; this only decides whether it runs at all, and keeps its answer (IdempotencyStore.ts).
 */
import { Context, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { inBackground } from "../shared/BackgroundWork.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { IdempotencyStore, type IdempotentAnswer } from "./IdempotencyStore.ts"

/** How long a key and its answer are kept, as Stripe does: 24 hours. */
export const IDEMPOTENCY_KEY_TTL = Duration.hours(24)

/**
 * How long a request that claimed a key may run before another request with the key may take it over: longer
 * than any request takes (statement, connect and upstream timeouts are all shorter), so only a holder that
 * crashed before it could answer loses its key.
 */
export const IDEMPOTENCY_LOCK = Duration.minutes(5)

/** How often expired keys are deleted (a claim replaces an expired entry of its own key at any time). */
export const IDEMPOTENCY_SWEEP_INTERVAL = Duration.hours(1)

/** The longest key accepted, as Stripe's. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255

/** Printable ASCII without spaces at either end: what a header carries unchanged. */
const KEY_PATTERN = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/

/** The key was used before with another request (another method, path or body). */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  message: Schema.String
}) {}

/** The first request with this key has not finished yet. */
export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", {
  message: Schema.String
}) {}

/** What to do with a request that carries a key: run it (and `finish` or `abandon` it), or replay an answer. */
export type IdempotentStart =
  | { readonly _tag: "Run" }
  | { readonly _tag: "Replay"; readonly answer: IdempotentAnswer }

export class Idempotency extends Context.Service<
  Idempotency,
  {
    /**
     * Starts a request that carries `key`, for the credential `scope` (a digest of it), whose request digest
     * is `fingerprint`. Fails with `InvalidRequest` for a malformed key, `IdempotencyKeyReused` when the key
     * came with another request, `IdempotencyKeyInUse` while its first request still runs.
     */
    readonly start: (
      scope: string,
      key: string,
      fingerprint: string
    ) => Effect.Effect<IdempotentStart, InvalidRequest | IdempotencyKeyReused | IdempotencyKeyInUse | StoreError>
    /** Keeps the answer of a request that ran, to be replayed. */
    readonly finish: (scope: string, key: string, answer: IdempotentAnswer) => Effect.Effect<void, StoreError>
    /** Frees the key of a request that failed on our side (no answer worth keeping): a retry runs again. */
    readonly abandon: (scope: string, key: string) => Effect.Effect<void, StoreError>
  }
>()("@gateway-control/Idempotency") {
  static readonly layer = Layer.effect(
    Idempotency,
    Effect.gen(function*() {
      const store = yield* IdempotencyStore
      // Expired entries go once an hour, from every process; a failed sweep waits for the next.
      yield* Effect.forkScoped(
        inBackground(Effect.repeat(
          Effect.ignore(Effect.delay(store.sweep, IDEMPOTENCY_SWEEP_INTERVAL)),
          Schedule.forever
        ))
      )
      return Idempotency.of({
        start: (scope, key, fingerprint) => {
          if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !KEY_PATTERN.test(key)) {
            return Effect.fail(
              InvalidRequest.of(
                `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.`,
                "Idempotency-Key"
              )
            )
          }
          return Effect.flatMap(
            store.claim({
              scope,
              key,
              fingerprint,
              ttlMs: Duration.toMillis(IDEMPOTENCY_KEY_TTL),
              lockMs: Duration.toMillis(IDEMPOTENCY_LOCK)
            }),
            (claim): Effect.Effect<IdempotentStart, IdempotencyKeyReused | IdempotencyKeyInUse> => {
              if (claim._tag === "Claimed") return Effect.succeed({ _tag: "Run" })
              if (claim.fingerprint !== fingerprint) {
                return Effect.fail(
                  new IdempotencyKeyReused({
                    message: "This Idempotency-Key was used with another request (method, path or body) in the " +
                      "last 24 hours: use a new key for a new request."
                  })
                )
              }
              if (claim.answer === null) {
                return Effect.fail(
                  new IdempotencyKeyInUse({
                    message: "A request with this Idempotency-Key is still running: retry once it has answered."
                  })
                )
              }
              return Effect.succeed({ _tag: "Replay", answer: claim.answer })
            }
          )
        },
        finish: store.complete,
        abandon: store.release
      })
    })
  )
}
