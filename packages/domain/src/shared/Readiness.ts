/**
 * Whether the service can answer: its store answers a ping in time. Readiness probes (`/readyz`) ask this,
 * so that no edge holds the store's units of work to find out.
 */
import { Context, Duration, Effect, Layer } from "effect"
import { StoreTransaction, StoreUnavailable } from "./StoreTransaction.ts"

/** How long a probe waits for the store before it calls it unavailable. */
export const READINESS_TIMEOUT = Duration.seconds(2)

export class Readiness extends Context.Service<
  Readiness,
  {
    /** Succeeds when the store answers within `READINESS_TIMEOUT`. */
    readonly check: Effect.Effect<void, StoreUnavailable>
  }
>()("@gateway-control/Readiness") {
  static readonly layer = Layer.effect(
    Readiness,
    Effect.map(Effect.service(StoreTransaction), (store) =>
      Readiness.of({
        check: store.ping.pipe(
          Effect.timeoutOrElse({
            duration: READINESS_TIMEOUT,
            orElse: () => Effect.fail(new StoreUnavailable({ message: "The store did not answer in time." }))
          })
        )
      }))
  )
}
