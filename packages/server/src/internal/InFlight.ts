/** Counts an engine's requests in flight, so that `close()` can let them finish before releasing the store. */

interface Emitter {
  readonly once: (event: string, listener: () => void) => unknown
}

export const makeInFlight = () => {
  let count = 0
  const waiters = new Set<() => void>()
  const end = () => {
    count--
    if (count === 0) { for (const wake of waiters) wake() }
  }
  return {
    /** Counts the request until its promise settles. */
    track: <A>(answer: Promise<A>): Promise<A> => {
      count++
      return answer.finally(end)
    },
    /** Counts the request until the emitter emits the event (a Node response's `close`). */
    trackUntil: (emitter: Emitter, event: string): void => {
      count++
      emitter.once(event, end)
    },
    /** Resolves once no request is in flight, or after `timeoutMs`, whichever comes first. */
    settled: (timeoutMs: number): Promise<void> =>
      new Promise((resolve) => {
        if (count === 0) return resolve()
        const wake = () => {
          clearTimeout(timer)
          waiters.delete(wake)
          resolve()
        }
        const timer = setTimeout(wake, timeoutMs)
        waiters.add(wake)
      })
  }
}
