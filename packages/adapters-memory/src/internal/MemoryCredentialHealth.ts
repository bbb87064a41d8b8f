/** Integrations' credential health in memory: the last check of each, by integration id. */
import { type CredentialHealth, CredentialHealthStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { Table } from "./Table.ts"

export const makeCredentialHealthStore = (state: MemoryState) => {
  const health = new Table<CredentialHealth>(state)
  return CredentialHealthStore.of({
    put: (checked) =>
      Effect.flatMap(
        health.replace(checked.integration_id, () => checked),
        (replaced) => replaced ? Effect.void : Effect.asVoid(health.insert(checked.integration_id, checked))
      ),
    get: (integrationId) => Effect.sync(() => health.get(integrationId)),
    getMany: (integrationIds) =>
      Effect.sync(() =>
        new Map(
          integrationIds.flatMap((id) => Option.match(health.get(id), { onNone: () => [], onSome: (h) => [[id, h]] }))
        )
      )
  })
}
