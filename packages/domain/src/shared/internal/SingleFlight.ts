/**
 * Concurrent lookups of one key share one run: the first caller runs the lookup, and callers that come while it
 * runs wait for its result instead of asking the store again. Without it, the renders that reach a process in
 * the moment a prompt reference is first resolved each resolve it: ten connections' first renders with a new
 * key's workspace made ten resolutions of five reads each, one after another on PGlite's one thread (~100 ms
 * in front of every request then).
 *
 * A run is shared only among callers of one `epoch` (the cache's generation): a caller that comes after a change
 * does not take a result read before it. Only a success is shared. A failure or an interruption may be the first
 * caller's own (its access, its client gone), so a waiter then runs the lookup itself.
 */
import { Deferred, Effect, Exit } from "effect"

interface Run<A, E> {
  readonly epoch: number
  readonly result: Deferred.Deferred<A, E>
}

export class SingleFlight<K, A, E> {
  private readonly running = new Map<K, Run<A, E>>()

  /**
   * `lookup`'s result for `key`: this caller's own run, or one of the same `epoch` under way, passed through
   * `joined` (a waiter's own checks of the shared result).
   */
  run<R, E2, R2>(
    key: K,
    epoch: number,
    lookup: Effect.Effect<A, E, R>,
    joined: (shared: A) => Effect.Effect<A, E2, R2>
  ): Effect.Effect<A, E | E2, R | R2> {
    return Effect.suspend(() => {
      const current = this.running.get(key)
      if (current !== undefined && current.epoch === epoch) {
        return Effect.flatMap(
          Effect.exit(Deferred.await(current.result)),
          (exit): Effect.Effect<A, E | E2, R | R2> => Exit.isSuccess(exit) ? joined(exit.value) : lookup
        )
      }
      const run: Run<A, E> = { epoch, result: Deferred.makeUnsafe<A, E>() }
      this.running.set(key, run)
      return Effect.onExit(lookup, (exit) =>
        Effect.sync(() => {
          if (this.running.get(key) === run) this.running.delete(key)
          Deferred.doneUnsafe(run.result, exit)
        }))
    })
  }

  /** Runs under way (for tests). */
  get size(): number {
    return this.running.size
  }
}
