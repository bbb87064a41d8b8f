/**
 * When each key was last used (`last_used_at`): noted on the request path with no store access, written by a
 * background fiber at most once a minute per key in this process. A write that fails is logged and forgotten;
 * it never fails a request.
 */
import { Cause, Effect, Queue } from "effect"
import { inBackground } from "../shared/BackgroundWork.ts"
import { nowIso } from "../shared/internal/time.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import { ApiKeyStore } from "./ApiKeyStore.ts"

/** A key's use is written at most this often by one process. */
export const USAGE_RECORD_INTERVAL_MS = 60_000

/** Keys whose recent use is remembered; past this, the oldest are forgotten (and may be written again early). */
const REMEMBERED_KEYS = 100_000

export const makeKeyUsage = Effect.gen(function*() {
  const store = yield* ApiKeyStore
  const recently = new TtlCache<string, true>(USAGE_RECORD_INTERVAL_MS, REMEMBERED_KEYS)
  const toWrite = yield* Queue.unbounded<string>()

  const write = Effect.gen(function*() {
    const ids = yield* Queue.takeAll(toWrite)
    yield* store.recordUse([...new Set(ids)], yield* nowIso)
  }).pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logWarning(
        "key usage: last_used_at could not be written"
      ).pipe(Effect.annotateLogs({ reason: Cause.pretty(cause) }))
    )
  )
  yield* Effect.forkScoped(inBackground(Effect.forever(write)))

  /** Notes that the key was used at `now` (ms); synchronous, for the request path. */
  return (keyId: string, now: number): void => {
    if (recently.get(keyId, now) !== undefined) return
    recently.set(keyId, true, now)
    Queue.offerUnsafe(toWrite, keyId)
  }
})
