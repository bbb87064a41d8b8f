/**
 * The end of rotations' transitions. A replaced secret stops working at its transition's end whatever happens
 * here (resolution checks the time); this forgets its digest, audits the end, and tells every process. Each
 * process looks once a second; the store hands each ended transition to one of them only.
 */
import { Cause, Effect, Layer } from "effect"
import { Audit } from "../audit/AuditLog.ts"
import { inBackground } from "../shared/BackgroundWork.ts"
import { ChangeFeed } from "../shared/ChangeFeed.ts"
import { nowIso } from "../shared/internal/time.ts"
import { StoreTransaction } from "../shared/StoreTransaction.ts"
import { ApiKeyStore } from "./ApiKeyStore.ts"

/** How often each process looks for transitions that ended. */
export const TRANSITION_SWEEP_INTERVAL_MS = 1_000

export const makeTransitionSweep = Effect.gen(function*() {
  const store = yield* ApiKeyStore
  const audit = yield* Audit
  const transaction = yield* StoreTransaction
  const feed = yield* ChangeFeed

  /** Ends what has ended by now, each with its audit record, in one unit of work; answers how many. */
  return transaction.withTransaction(Effect.gen(function*() {
    const now = yield* nowIso
    const ended = yield* store.endTransitions(now)
    for (const key of ended) {
      // No request made this change: the record names the key itself as the actor, and no method or path.
      yield* audit.record({
        actor: { organisationId: key.organisation_id, keyId: key.id, userId: null },
        workspaceId: key.workspace_id,
        action: "transition_end",
        resourceType: "api_key",
        resourceId: key.id,
        method: "",
        uri: "",
        requestId: "",
        requestBody: { rotated_at: key.rotated_at, transition_ends_at: key.transition_ends_at },
        responseStatusCode: 200,
        clientIp: null
      })
      yield* feed.publish({ _tag: "ApiKeyChanged", keyId: key.id })
    }
    return ended.length
  }))
})

/** Sweeps ended transitions once a second for as long as the layer lives; a failed sweep is logged and retried. */
export const layerTransitionSweep = Layer.effectDiscard(Effect.gen(function*() {
  const sweep = yield* makeTransitionSweep
  const logged = sweep.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.as(
        Effect.logWarning("key transitions: the sweep failed; it runs again shortly").pipe(
          Effect.annotateLogs({ reason: Cause.pretty(cause) })
        ),
        0
      )
    )
  )
  yield* Effect.forkScoped(
    inBackground(Effect.forever(Effect.andThen(Effect.sleep(TRANSITION_SWEEP_INTERVAL_MS), logged)))
  )
}))
