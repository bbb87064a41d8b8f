/** What SCIM keeps of users, in memory: one row a user. */
import { type ScimIdentity, ScimStore } from "@gateway-control/domain"
import { Effect } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { Table } from "./Table.ts"

export const makeScimStore = (state: MemoryState) => {
  const identities = new Table<ScimIdentity>(state)
  return ScimStore.of({
    putIdentity: (identity) =>
      Effect.flatMap(
        identities.replace(identity.user_id, () => identity),
        (replaced) => replaced ? Effect.void : Effect.asVoid(identities.insert(identity.user_id, identity))
      ),
    getIdentity: (userId) => Effect.sync(() => identities.get(userId)),
    identities: (organisationId) =>
      Effect.sync(() => [...identities.rows.values()].filter((i) => i.organisation_id === organisationId)),
    removeIdentity: (userId) => identities.delete(userId)
  })
}
