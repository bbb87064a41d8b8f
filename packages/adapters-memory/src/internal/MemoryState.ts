import { Context, Effect, Semaphore } from "effect"

/**
 * The state behind every in-memory port, and its unit of work. Each write is synchronous, so it is atomic
 * on its own; `withTransaction` serialises units of work with a one-permit lock and records an undo
 * action per write, replayed in reverse when the unit fails. Writes outside a transaction take the lock
 * too, so they never interleave with one. Reads take no lock: like READ UNCOMMITTED, a concurrent reader
 * may see a transaction's writes before it commits.
 */
export interface UndoLog {
  readonly entries: Array<() => void>
  /** Effects to run once the unit of work has committed. */
  readonly afterCommit: Array<Effect.Effect<void>>
}

export const CurrentUndoLog = Context.Reference<UndoLog | undefined>(
  "@gateway-control/adapters-memory/CurrentUndoLog",
  {
    defaultValue: () => undefined
  }
)

export class MemoryState {
  readonly lock = Semaphore.makeUnsafe(1)

  /** Runs `apply`, which returns its own undo, as one atomic write. */
  write<A>(apply: () => readonly [A, () => void]): Effect.Effect<A> {
    return Effect.flatMap(Effect.service(CurrentUndoLog), (log) => {
      if (log !== undefined) {
        return Effect.sync(() => {
          const [result, undo] = apply()
          log.entries.push(undo)
          return result
        })
      }
      return this.lock.withPermits(1)(Effect.sync(() => apply()[0]))
    })
  }

  withTransaction<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> {
    return Effect.flatMap(Effect.service(CurrentUndoLog), (current) => {
      // Nested units of work join the enclosing one.
      if (current !== undefined) return effect
      return Effect.suspend(() => {
        const log: UndoLog = { entries: [], afterCommit: [] }
        return this.lock.withPermits(1)(
          effect.pipe(
            Effect.provideService(CurrentUndoLog, log),
            Effect.onExit((exit) =>
              Effect.sync(() => {
                if (exit._tag === "Failure") {
                  for (let i = log.entries.length - 1; i >= 0; i--) log.entries[i]()
                }
              })
            )
          )
        ).pipe(
          // Committed, and the lock released: run what waited for the commit, in registration order.
          Effect.tap(() => Effect.forEach(log.afterCommit, (run) => run, { discard: true }))
        )
      })
    })
  }

  /** Runs `effect` once the enclosing unit of work commits (never if it rolls back); at once outside one. */
  afterCommit(effect: Effect.Effect<void>): Effect.Effect<void> {
    return Effect.flatMap(
      Effect.service(CurrentUndoLog),
      (log) => log === undefined ? effect : Effect.sync(() => void log.afterCommit.push(effect))
    )
  }
}
