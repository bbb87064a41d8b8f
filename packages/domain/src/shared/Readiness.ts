/**
 * Whether the service can answer: it is not stopping, and its store answers a ping in time. Readiness probes
 * (`/readyz`) ask this, so that no edge holds the store's units of work to find out.
 */
import { Context, Duration, Effect, Layer, Schema } from "effect"
import { StoreTransaction, StoreUnavailable } from "./StoreTransaction.ts"

/** How long a probe waits for the store before it calls it unavailable. */
export const READINESS_TIMEOUT = Duration.seconds(2)

/** The service is stopping: balancers should send no more requests, while those already sent still finish. */
export class ShuttingDown extends Schema.TaggedError<ShuttingDown>()("ShuttingDown", {
  message: Schema.String
}) {}

export class Readiness extends Context.Service<
  Readiness,
  {
    /** Succeeds while the service is not stopping and the store answers within `READINESS_TIMEOUT`. */
    readonly check: Effect.Effect<void, StoreUnavailable | ShuttingDown>
    /** From now on `check` fails with `ShuttingDown`: the first step of a stop, before the listener closes. */
    readonly stop: Effect.Effect<void>
  }
>()("@gateway-control/Readiness") {
  static readonly layer = Layer.effect(
    Readiness,
    Effect.map(Effect.service(StoreTransaction), (store) => {
      let stopping = false
      const ping = store.ping.pipe(
        Effect.timeoutOrElse({
          duration: READINESS_TIMEOUT,
          orElse: () => Effect.fail(new StoreUnavailable({ message: "The store did not answer in time." }))
        })
      )
      return Readiness.of({
        check: Effect.suspend((): Effect.Effect<void, StoreUnavailable | ShuttingDown> =>
          stopping ? Effect.fail(new ShuttingDown({ message: "The service is shutting down." })) : ping
        ),
        stop: Effect.sync(() => {
          stopping = true
        })
      })
    })
  )
}
