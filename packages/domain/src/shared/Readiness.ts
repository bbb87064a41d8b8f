/**
 * Whether the service can answer: it is not stopping, and its store answers a ping in time, or it is in an
 * outage (StoreOutage.ts) and says so. Readiness probes (`/readyz`) ask this, so that no edge holds the store's
 * units of work to find out.
 *
 * During an outage the answer is `degraded`, steadily, from the first failed probe or call until the outage's
 * own probe finds the store back: a balancer keeps sending requests, which the snapshot answers where it can and
 * which answer 503 `store_unavailable` with `Retry-After` where it cannot, rather than every process dropping in
 * and out of rotation with each probe.
 */
import { Context, Duration, Effect, Layer, Schema } from "effect"
import { StoreOutage } from "./StoreOutage.ts"
import { StoreTransaction, StoreUnavailable } from "./StoreTransaction.ts"

/** How long a probe waits for the store before it calls it unavailable. */
export const READINESS_TIMEOUT = Duration.seconds(2)

/** The service is stopping: balancers should send no more requests, while those already sent still finish. */
export class ShuttingDown extends Schema.TaggedError<ShuttingDown>()("ShuttingDown", {
  message: Schema.String
}) {}

/** What a readiness probe answers while the service takes requests. */
export const ReadinessStatus = Schema.Union([
  Schema.Struct({ status: Schema.Literal("ok") }),
  Schema.Struct({
    status: Schema.Literal("degraded"),
    /** Why: `store_unavailable`, the store does not answer. */
    reason: Schema.Literal("store_unavailable"),
    message: Schema.String,
    /** Since when (ISO 8601). */
    since: Schema.String
  })
])
export type ReadinessStatus = typeof ReadinessStatus.Type

const OK: ReadinessStatus = { status: "ok" }

export class Readiness extends Context.Service<
  Readiness,
  {
    /**
     * `ok` while the store answers within `READINESS_TIMEOUT`, `degraded` during an outage (the failed probe
     * starts one); fails with `ShuttingDown` once the service is stopping.
     */
    readonly check: Effect.Effect<ReadinessStatus, ShuttingDown>
    /** From now on `check` fails with `ShuttingDown`: the first step of a stop, before the listener closes. */
    readonly stop: Effect.Effect<void>
  }
>()("@gateway-control/Readiness") {
  static readonly layer = Layer.effect(
    Readiness,
    Effect.gen(function*() {
      const store = yield* StoreTransaction
      const outage = yield* StoreOutage
      let stopping = false
      const degraded = (since: number): ReadinessStatus => ({
        status: "degraded",
        reason: "store_unavailable",
        message: outage.snapshotMs > 0
          ? "The store does not answer: keys and prompts this process resolved in the last " +
            `${Math.round(outage.snapshotMs / 1000)} s answer from its snapshot, everything else answers 503.`
          : "The store does not answer: everything that needs it answers 503.",
        since: new Date(since).toISOString()
      })
      const ping = store.ping.pipe(
        Effect.timeoutOrElse({
          duration: READINESS_TIMEOUT,
          orElse: () => Effect.fail(new StoreUnavailable({ message: "The store did not answer in time." }))
        }),
        Effect.as(OK),
        Effect.catch((error) =>
          Effect.andThen(outage.seen(error), Effect.sync(() => degraded(outage.current()?.since ?? Date.now())))
        )
      )
      return Readiness.of({
        check: Effect.suspend((): Effect.Effect<ReadinessStatus, ShuttingDown> => {
          if (stopping) return Effect.fail(new ShuttingDown({ message: "The service is shutting down." }))
          const current = outage.current()
          return current === undefined ? ping : Effect.succeed(degraded(current.since))
        }),
        stop: Effect.sync(() => {
          stopping = true
        })
      })
    })
  )
}
