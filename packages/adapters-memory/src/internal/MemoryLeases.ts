/** `LeaseStore` in memory: one process holds everything it asks for, unless a test plays two holders. */
import { LeaseStore } from "@gateway-control/domain"
import { Clock, Effect } from "effect"

export const makeLeaseStore = () => {
  const leases = new Map<string, { readonly holder: string; readonly expiresAt: number }>()
  return LeaseStore.of({
    acquire: (name, holder, ttlMs) =>
      Clock.currentTimeMillis.pipe(Effect.map((now) => {
        const current = leases.get(name)
        if (current !== undefined && current.holder !== holder && current.expiresAt > now) return false
        leases.set(name, { holder, expiresAt: now + ttlMs })
        return true
      })),
    release: (name, holder) =>
      Effect.sync(() => {
        if (leases.get(name)?.holder === holder) leases.delete(name)
      })
  })
}
