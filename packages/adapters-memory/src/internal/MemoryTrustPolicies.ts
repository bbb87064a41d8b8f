/** Trust policies in memory: names unique within their organisation. */
import { type TrustPolicy, TrustPolicyStore } from "@gateway-control/domain"
import { Effect } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { byCreation, conflictOn, Table } from "./Table.ts"

const taken = (policy: TrustPolicy) => `A trust policy named '${policy.name}' already exists in this organisation.`

export const makeTrustPolicyStore = (state: MemoryState) => {
  const policies = new Table<TrustPolicy>(state, (policy) => [`${policy.organisation_id}/${policy.name}`])
  return TrustPolicyStore.of({
    insert: (policy) =>
      Effect.flatMap(policies.insert(policy.id, policy), (key) => conflictOn(key, taken(policy), "name")),
    get: (id) => Effect.sync(() => policies.get(id)),
    list: (organisationId, page) => Effect.sync(() => policies.page((p) => p.organisation_id === organisationId, page)),
    findByIssuer: (issuer) =>
      Effect.sync(() => [...policies.rows.values()].filter((p) => p.issuer === issuer).sort(byCreation)),
    update: (policy) =>
      Effect.flatMap(
        policies.rekey(policy.id, policy),
        (result) =>
          typeof result === "string"
            ? Effect.as(conflictOn(result, taken(policy), "name"), false)
            : Effect.succeed(result)
      ),
    delete: (id) => policies.delete(id)
  })
}
