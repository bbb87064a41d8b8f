/**
 * Another organisation, written straight to the store (no key of it exists): for tests of what a key may
 * not reach across organisations.
 */
import { Organisation, OrganisationStore } from "@gateway-control/domain"
import { Effect } from "effect"

export const anotherOrganisation = Effect.gen(function*() {
  const now = new Date().toISOString()
  const organisation = new Organisation({
    id: crypto.randomUUID(),
    name: "Elsewhere",
    created_at: now,
    last_updated_at: now
  })
  yield* (yield* OrganisationStore).insert(organisation)
  return { organisation, now }
})
