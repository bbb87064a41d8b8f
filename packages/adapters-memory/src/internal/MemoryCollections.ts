/**
 * Collections in memory: unique by slug in their workspace, one default per workspace; what one holds is
 * counted over the prompt and partial tables.
 */
import { Collection, CollectionStore } from "@gateway-control/domain"
import { Effect } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { conflictOn, inScope, Table } from "./Table.ts"

/** What a collection may hold: rows naming their collection. */
interface Held {
  readonly rows: ReadonlyMap<string, { readonly collection_id: string }>
}

export const makeCollectionStore = (state: MemoryState, prompts: Held, partials: Held) => {
  const collections = new Table<Collection>(state, (c) => [
    `${c.workspace_id}/${c.slug}`,
    ...(c.is_default ? [`${c.workspace_id}/default-collection`] : [])
  ])
  const count = (held: Held, id: string) => {
    let n = 0
    for (const row of held.rows.values()) if (row.collection_id === id) n++
    return n
  }
  return CollectionStore.of({
    insert: (collection) =>
      Effect.flatMap(
        collections.insert(collection.id, collection),
        (taken) =>
          conflictOn(taken, `A collection with slug '${collection.slug}' already exists in this workspace.`, "slug")
      ),
    update: (collection) =>
      collections.replace(
        collection.id,
        (current) => new Collection({ ...current, name: collection.name, last_updated_at: collection.last_updated_at })
      ),
    get: (id) => Effect.sync(() => collections.get(id)),
    findBySlug: (workspaceId, slug) => Effect.sync(() => collections.byUnique(`${workspaceId}/${slug}`)),
    findAllBySlug: (organisationId, slug) =>
      Effect.sync(() =>
        [...collections.rows.values()].filter((c) => c.organisation_id === organisationId && c.slug === slug)
      ),
    defaultOf: (workspaceId) => Effect.sync(() => collections.byUnique(`${workspaceId}/default-collection`)),
    list: (organisationId, workspaceId, search, page) =>
      Effect.sync(() =>
        collections.page(
          (c) =>
            inScope(c, organisationId, workspaceId) &&
            (search === null || c.name.toLowerCase().includes(search.toLowerCase())),
          page
        )
      ),
    contents: (id) =>
      Effect.sync(() => ({
        prompts: count(prompts, id),
        partials: count(partials, id),
        collections: [...collections.rows.values()].filter((c) => c.parent_collection_id === id).length
      })),
    delete: (id) => collections.delete(id)
  })
}
