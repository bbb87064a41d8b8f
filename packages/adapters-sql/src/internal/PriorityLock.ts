/**
 * A one-holder lock with two queues: a request's waiter always goes before background work's (the last-used-at
 * flush, the rotation sweep, health checks), and each queue is served in order. PGlite runs every statement on
 * the thread that serves requests, one at a time; with this lock a request's statement waits for at most the
 * statement (or the transaction) that holds the lock now, never for a burst of background statements queued
 * before it. Background work takes the lock only when no request waits for it, and gives it back after each
 * statement, so a burst of it interleaves with requests. Background work can wait as long as requests keep
 * coming; its jobs are late, never wrong.
 */
import { Effect, type Scope } from "effect"

interface Waiter {
  resume: ((effect: Effect.Effect<void>) => void) | undefined
}

export interface PriorityLock {
  /** Takes the lock until the current scope closes; `background` waiters go after every request waiter. */
  readonly take: (background: boolean) => Effect.Effect<void, never, Scope.Scope>
  /** How many waiters each queue holds now (for tests and metrics). */
  readonly waiting: () => { readonly requests: number; readonly background: number }
}

export const makePriorityLock = (): PriorityLock => {
  let held = false
  // Sets keep insertion order: the first entry is the longest waiting.
  const requests = new Set<Waiter>()
  const background = new Set<Waiter>()
  const first = (): Waiter | undefined => {
    for (const waiter of requests) return waiter
    for (const waiter of background) return waiter
    return undefined
  }
  /** Resumes the waiter whose turn it is, if the lock is free; it takes the lock when it runs. */
  const wake = () => {
    if (held) return
    const next = first()
    const resume = next?.resume
    if (next === undefined || resume === undefined) return
    next.resume = undefined
    resume(Effect.void)
  }
  const release = Effect.sync(() => {
    held = false
    wake()
  })

  const take = (isBackground: boolean): Effect.Effect<void, never, Scope.Scope> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        if (!held && first() === undefined) {
          held = true
          return Effect.addFinalizer(() => release)
        }
        const queue = isBackground ? background : requests
        const waiter: Waiter = { resume: undefined }
        queue.add(waiter)
        // Only the waiting is interruptible; an interrupted waiter leaves its queue and passes its turn on.
        const wait = restore(Effect.callback<void>((resume) => {
          if (!held && first() === waiter) resume(Effect.void)
          else {
            waiter.resume = resume
            // A request that arrived while a woken background waiter was on its way has the turn now.
            wake()
          }
        }))
        const turn: Effect.Effect<void, never, Scope.Scope> = Effect.flatMap(wait, () => {
          if (held || first() !== waiter) return turn
          held = true
          queue.delete(waiter)
          return Effect.addFinalizer(() => release)
        })
        return Effect.onExit(turn, (exit) =>
          exit._tag === "Failure" && queue.delete(waiter) ? Effect.sync(wake) : Effect.void)
      })
    )

  return { take, waiting: () => ({ requests: requests.size, background: background.size }) }
}
