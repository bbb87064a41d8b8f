/**
 * `IdempotencyStore` in memory: one process's keys, by the process's clock. A claim is one synchronous step,
 * so of concurrent claims exactly one wins.
 */
import { type IdempotencyClaim, IdempotencyStore, type IdempotentAnswer } from "@gateway-control/domain"
import { Clock, Effect } from "effect"

interface Entry {
  readonly fingerprint: string
  readonly answer: IdempotentAnswer | null
  readonly lockedUntil: number
  readonly expiresAt: number
}

const idOf = (scope: string, key: string) => `${scope}\u0000${key}`

export const makeIdempotencyStore = () => {
  const entries = new Map<string, Entry>()
  return IdempotencyStore.of({
    claim: (request) =>
      Clock.currentTimeMillis.pipe(Effect.map((now): IdempotencyClaim => {
        const id = idOf(request.scope, request.key)
        const current = entries.get(id)
        const live = current !== undefined && current.expiresAt > now &&
          (current.answer !== null || current.lockedUntil > now)
        if (live) return { _tag: "Held", fingerprint: current.fingerprint, answer: current.answer }
        entries.set(id, {
          fingerprint: request.fingerprint,
          answer: null,
          lockedUntil: now + request.lockMs,
          expiresAt: now + request.ttlMs
        })
        return { _tag: "Claimed" }
      })),
    complete: (scope, key, answer) =>
      Effect.sync(() => {
        const id = idOf(scope, key)
        const current = entries.get(id)
        if (current !== undefined && current.answer === null) entries.set(id, { ...current, answer })
      }),
    release: (scope, key) =>
      Effect.sync(() => {
        const id = idOf(scope, key)
        if (entries.get(id)?.answer === null) entries.delete(id)
      }),
    sweep: Clock.currentTimeMillis.pipe(Effect.map((now) => {
      let deleted = 0
      for (const [id, entry] of entries) {
        if (entry.expiresAt <= now) {
          entries.delete(id)
          deleted++
        }
      }
      return deleted
    }))
  })
}
