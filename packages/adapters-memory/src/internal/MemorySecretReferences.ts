/** Secret references in memory: slugs unique within their organisation. */
import { SecretReferenceStore, type StoredSecretReference } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { byCreation, conflictOn, Table } from "./Table.ts"

const taken = (stored: StoredSecretReference) =>
  `A secret reference with slug '${stored.record.slug}' already exists in this organisation.`

export const makeSecretReferenceStore = (state: MemoryState) => {
  const references = new Table<StoredSecretReference>(
    state,
    (stored) => [`${stored.record.organisation_id}/${stored.record.slug}`]
  )
  return SecretReferenceStore.of({
    insert: (stored) =>
      Effect.flatMap(references.insert(stored.record.id, stored), (key) => conflictOn(key, taken(stored), "slug")),
    get: (id) => Effect.sync(() => references.get(id)),
    findBySlug: (organisationId, slug) =>
      Effect.sync(() =>
        Option.fromUndefinedOr(
          [...references.rows.values()].find((s) =>
            s.record.organisation_id === organisationId && s.record.slug === slug
          )
        )
      ),
    list: (organisationId, filter, page) =>
      Effect.sync(() => {
        const search = filter.search?.toLowerCase()
        const found = references.page(
          ({ record }) =>
            record.organisation_id === organisationId &&
            (filter.managerType === undefined || record.manager_type === filter.managerType) &&
            (search === undefined || record.name.toLowerCase().includes(search)),
          page,
          (a, b) => byCreation(a.record, b.record)
        )
        return { items: found.items.map((s) => s.record), total: found.total }
      }),
    update: (stored) =>
      Effect.flatMap(
        references.rekey(stored.record.id, stored),
        (result) =>
          typeof result === "string"
            ? Effect.as(conflictOn(result, taken(stored), "slug"), false)
            : Effect.succeed(result)
      ),
    delete: (id) => references.delete(id)
  })
}
