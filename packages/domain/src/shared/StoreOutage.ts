/**
 * The outage contract, the domain's half: what the process may still answer while its store is unreachable.
 *
 * An outage starts when a call that the snapshot could answer (a key's admission, a render's resolution) or a
 * readiness probe finds the store unreachable (`StoreError` "unavailable", `StoreUnavailable`). From then on:
 * - the caches that hold store reads for those calls answer from what they held (their snapshot), even past
 *   their lifetime, for entries whose store read is at most `STORE_OUTAGE_SNAPSHOT_MS` old, without asking the
 *   store first; each such answer says how old its read is (`SnapshotHit.ageMs`; HTTP adds the header);
 * - whatever a change cleared from a cache before the outage (a revocation, a label move) stays cleared: the
 *   snapshot is what the caches held, never what they forgot;
 * - everything else asks the store, and fails with `StoreError` within its connect and statement timeouts;
 * - readiness says degraded, with the reason and since when, without asking the store on every probe.
 * A probe in the background asks the store every `OUTAGE_PROBE_INTERVAL_MS`; once it answers, the outage ends
 * and every cache that subscribed is told to `Resync` (cleared), as after a gap in the change feed, since
 * whatever other processes changed meanwhile went unheard.
 *
 * PGlite and the memory store are in the process: they cannot become unreachable, so their outages never start
 * (a test's store switched off does).
 */
import { Context, Duration, Effect, Layer, type Scope } from "effect"
import type { ChangeEvent } from "./ChangeFeed.ts"
import type { TtlCache } from "./internal/TtlCache.ts"
import type { StoreError } from "./StoreError.ts"
import { StoreTransaction, type StoreUnavailable } from "./StoreTransaction.ts"

/** Ten minutes: an operator's restart or a failover fits; a day-long outage does not go unnoticed. */
export const DEFAULT_STORE_OUTAGE_SNAPSHOT_MS = 600_000

/** How often the store is asked whether it is back, during an outage only. */
export const OUTAGE_PROBE_INTERVAL_MS = 500

/** How long a probe waits for the store. */
export const OUTAGE_PROBE_TIMEOUT = Duration.seconds(2)

export interface StoreOutageSettingsShape {
  /**
   * How old a cached store read may be and still answer while the store is unreachable (`STORE_OUTAGE_SNAPSHOT_MS`);
   * 0 answers nothing from a snapshot: only from entries within their ordinary lifetime, as when the store is up.
   */
  readonly snapshotMs: number
}

export const StoreOutageSettings = Context.Reference<StoreOutageSettingsShape>(
  "@gateway-control/domain/StoreOutageSettings",
  { defaultValue: () => ({ snapshotMs: DEFAULT_STORE_OUTAGE_SNAPSHOT_MS }) }
)

/** An outage under way. */
export interface Outage {
  /** When it was first seen (epoch ms). */
  readonly since: number
  /** The store's own words: for the log, never for clients (they may name hosts). */
  readonly cause: string
}

/** A cache's answer during an outage: the value, and how old the store read behind it is. */
export interface SnapshotHit<V> {
  readonly value: V
  readonly ageMs: number
}

/** A failure that says the store is unreachable (not a contention, which a retry of the unit of work solves). */
export const isStoreUnreachable = <E>(error: E): error is E & (StoreError | StoreUnavailable) =>
  typeof error === "object" && error !== null && "_tag" in error &&
  ((error._tag === "StoreError" && "reason" in error && error.reason === "unavailable") ||
    error._tag === "StoreUnavailable")

export interface StoreOutageShape {
  readonly snapshotMs: number
  /** The outage under way, or undefined while the store answers. */
  readonly current: () => Outage | undefined
  /**
   * True during an outage with the snapshot on: caches then answer from `fromSnapshot` alone, every answer
   * with its age, and what it does not hold asks the store. Cheap: the hot paths ask it on every call.
   */
  readonly snapshotting: () => boolean
  /** The store was found unreachable: starts an outage, unless one is under way. */
  readonly seen: (error: StoreError | StoreUnavailable) => Effect.Effect<void>
  /**
   * During an outage, what `cache` holds for `key` from a store read at most `snapshotMs` old; undefined while
   * the store answers (the cache's own lifetime rules then), or when it holds nothing that young.
   */
  readonly fromSnapshot: <K, V>(cache: TtlCache<K, V>, key: K, now: number) => SnapshotHit<V> | undefined
  /**
   * `fromStore`, and when it fails because the store is unreachable, the outage is started and `fromSnapshot`
   * answers instead if it can (it returns undefined when it holds nothing); otherwise the store's failure stands.
   */
  readonly orSnapshot: <A, E, R>(
    fromStore: Effect.Effect<A, E, R>,
    fromSnapshot: () => Effect.Effect<A, E, R> | undefined
  ) => Effect.Effect<A, E, R>
  /** Calls `handler` with `Resync` each time an outage ends, until the scope closes. Runs synchronously. */
  readonly onRecovery: (handler: (event: ChangeEvent) => void) => Effect.Effect<void, never, Scope.Scope>
}

const RESYNC: ChangeEvent = { _tag: "Resync" }

/** How many seconds, as an operator reads them in a log line. */
const secondsOf = (ms: number) => (ms / 1000).toFixed(1)

export class StoreOutage extends Context.Service<StoreOutage, StoreOutageShape>()("@gateway-control/StoreOutage") {
  /** Outages of the store in context, probed while they last, with the snapshot bound of `StoreOutageSettings`. */
  static readonly layer = Layer.effect(
    StoreOutage,
    Effect.gen(function*() {
      const store = yield* StoreTransaction
      const { snapshotMs } = yield* StoreOutageSettings
      let outage: Outage | undefined
      const handlers = new Set<(event: ChangeEvent) => void>()

      const ping = store.ping.pipe(
        Effect.timeoutOrElse({ duration: OUTAGE_PROBE_TIMEOUT, orElse: () => Effect.fail("timeout") }),
        Effect.match({ onFailure: () => false, onSuccess: () => true })
      )

      const recovered = Effect.clockWith((clock) => {
        const ended = outage
        if (ended === undefined) return Effect.void
        outage = undefined
        for (const handler of handlers) handler(RESYNC)
        return Effect.logInfo(
          `store outage: the store answers again after ${
            secondsOf(clock.currentTimeMillisUnsafe() - ended.since)
          } s; ` +
            "caches cleared of what may have changed meanwhile"
        )
      })

      // Asks the store only during an outage; otherwise one timer wake-up every interval, and nothing more.
      const probe = Effect.forever(
        Effect.andThen(
          Effect.sleep(OUTAGE_PROBE_INTERVAL_MS),
          Effect.suspend(() =>
            outage === undefined ? Effect.void : Effect.flatMap(ping, (up) => up ? recovered : Effect.void)
          )
        )
      )
      yield* Effect.forkScoped(probe)

      const seen = (error: StoreError | StoreUnavailable) =>
        Effect.clockWith((clock) => {
          if (outage !== undefined) return Effect.void
          outage = { since: clock.currentTimeMillisUnsafe(), cause: error.message }
          return Effect.logWarning(
            snapshotMs > 0
              ? `store outage: the store does not answer; cached keys and renders answer from their snapshot ` +
                `for up to ${secondsOf(snapshotMs)} s, everything else answers 503 until it is back`
              : "store outage: the store does not answer; everything that needs it answers 503 until it is back"
          ).pipe(Effect.annotateLogs({ cause: error.message }))
        })

      const fromSnapshot = <K, V>(cache: TtlCache<K, V>, key: K, now: number) =>
        outage === undefined || snapshotMs === 0 ? undefined : cache.snapshot(key, now, snapshotMs)

      return StoreOutage.of({
        snapshotMs,
        current: () => outage,
        snapshotting: () => outage !== undefined && snapshotMs > 0,
        seen,
        fromSnapshot,
        orSnapshot: (fromStore, fallback) =>
          Effect.catchIf(
            fromStore,
            isStoreUnreachable,
            (error) => Effect.andThen(seen(error), Effect.suspend(() => fallback() ?? Effect.fail(error)))
          ),
        onRecovery: (handler) =>
          Effect.acquireRelease(
            Effect.sync(() => void handlers.add(handler)),
            () => Effect.sync(() => void handlers.delete(handler))
          )
      })
    })
  )

  /** For a domain built without a store that can fail (unit tests): no outage ever starts. */
  static readonly never: StoreOutageShape = {
    snapshotMs: 0,
    current: () => undefined,
    snapshotting: () => false,
    seen: () => Effect.void,
    fromSnapshot: () => undefined,
    orSnapshot: (fromStore) => fromStore,
    onRecovery: () => Effect.void
  }
}
