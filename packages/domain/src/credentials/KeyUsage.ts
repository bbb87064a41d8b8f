/**
 * When each key was last used (`last_used_at`): noted on the request path with no store access, written by a
 * background fiber at most once a minute per key in this process, at most one write a second for all keys
 * together (in statements of at most `USAGE_WRITE_BATCH` keys, `USAGE_BATCH_SPACING_MS` apart), and what is still
 * unwritten when the process stops is written then. A write that fails is logged and forgotten; it never fails a
 * request.
 */
import { Array as Arr, Cause, Effect, Queue } from "effect"
import { inBackground } from "../shared/BackgroundWork.ts"
import { nowIso } from "../shared/internal/time.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import { ApiKeyStore } from "./ApiKeyStore.ts"

/** A key's use is written at most this often by one process. */
export const USAGE_RECORD_INTERVAL_MS = 60_000

/**
 * The least time between two writes: the uses noted meanwhile go in the next one, a single statement however
 * many keys. A burst of first uses (after a start, or of many new keys) was one statement a key, and on PGlite
 * each runs on the thread that serves requests: 100 keys first used together queued their requests behind 100
 * writes (README, Performance, "Under load").
 */
export const USAGE_WRITE_SPACING_MS = 1_000

/**
 * Most keys one statement writes: a larger batch goes in several, each its own background statement, so requests
 * are read and answered between them. On PGlite, on the thread that serves requests, in the bench's first round:
 * one statement for 100 keys took ~19 ms, for 20 keys 4–11 ms, hence 10.
 */
export const USAGE_WRITE_BATCH = 10

/**
 * The least time between two statements of one write. Taken one after another, the ten statements of 100 first
 * uses held PGlite's thread for 30–90 ms with a few requests between them (bench, first round: stalls of 10–20 ms
 * at the flush); spaced, each is one short stall among steadily served requests, as the health checker's writes.
 */
export const USAGE_BATCH_SPACING_MS = 50

/** How long a stop waits for the last write. */
const LAST_WRITE_AT_MOST_MS = 2_000

/** Keys whose recent use is remembered; past this, the oldest are forgotten (and may be written again early). */
const REMEMBERED_KEYS = 100_000

export const makeKeyUsage = Effect.gen(function*() {
  const store = yield* ApiKeyStore
  const recently = new TtlCache<string, true>(USAGE_RECORD_INTERVAL_MS, REMEMBERED_KEYS)
  const toWrite = yield* Queue.unbounded<string>()

  /** Writes `ids` in batches, `spacingMs` apart (none at a stop: no request is left to serve). */
  const write = (ids: ReadonlyArray<string>, spacingMs: number) =>
    Effect.flatMap(nowIso, (at) =>
      Effect.forEach(
        Arr.chunksOf(new Set(ids), USAGE_WRITE_BATCH),
        (batch, i) =>
          i === 0 || spacingMs === 0
            ? store.recordUse(batch, at)
            : Effect.andThen(Effect.sleep(spacingMs), store.recordUse(batch, at)),
        { discard: true }
      )).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.logWarning(
            "key usage: last_used_at could not be written"
          ).pipe(Effect.annotateLogs({ reason: Cause.pretty(cause) }))
        )
      )
  // Added before the writer's fiber, so it runs after the fiber is interrupted: the uses noted since the last write.
  yield* Effect.addFinalizer(() =>
    Effect.flatMap(Queue.clear(toWrite), (ids) => ids.length === 0 ? Effect.void : write(ids, 0)).pipe(
      Effect.timeout(LAST_WRITE_AT_MOST_MS),
      Effect.ignore
    )
  )
  const writer = Effect.forever(
    Effect.flatMap(Queue.takeAll(toWrite), (ids) => write(ids, USAGE_BATCH_SPACING_MS)).pipe(
      Effect.andThen(Effect.sleep(USAGE_WRITE_SPACING_MS))
    )
  )
  yield* Effect.forkScoped(inBackground(writer))

  /** Notes that the key was used at `now` (ms); synchronous, for the request path. */
  return (keyId: string, now: number): void => {
    if (recently.get(keyId, now) !== undefined) return
    recently.set(keyId, true, now)
    Queue.offerUnsafe(toWrite, keyId)
  }
})
