/**
 * Units of work over whichever store is configured.
 */
import { Context, type Effect, Schema } from "effect"
import type { StoreError } from "./StoreError.ts"

/**
 * Units of work. Everything run inside `withTransaction` commits together or not at all: a change and
 * the audit record describing it can never be separated. Beginning or committing it can fail with
 * `StoreError` (the store went away): then nothing of it was committed.
 */
export class StoreTransaction extends Context.Service<
  StoreTransaction,
  {
    readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
    /**
     * Takes an exclusive lock named `name` until the enclosing unit of work ends, across processes: for
     * check-then-act sequences that no constraint can guard (only one bootstrap of an empty store).
     */
    readonly lock: (name: string) => Effect.Effect<void, StoreError>
    /**
     * Runs `effect` once the enclosing unit of work commits, and not at all if it rolls back; at once
     * outside one. For in-process caches of what the unit of work changed: cleared before commit, a
     * concurrent reader could refill them from the rows still committed.
     */
    readonly afterCommit: (effect: Effect.Effect<void>) => Effect.Effect<void>
    /** Succeeds when the store answers; readiness checks use it. */
    readonly ping: Effect.Effect<void, StoreUnavailable>
  }
>()("@gateway-control/StoreTransaction") {}

/** The store did not answer a readiness probe. */
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", {
  message: Schema.String
}) {}
