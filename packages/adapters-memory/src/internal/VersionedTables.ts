/**
 * What the memory stores of prompts and of partials do alike: a table of resources, each unique by slug in its
 * workspace and created together with its first version, and a table of their numbered versions, unique by
 * resource and number so that two concurrent updates cannot take the same number.
 */
import type { Page, PageRequest } from "@gateway-control/domain"
import { Effect, type Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { conflictOn, inScope, Table } from "./Table.ts"

interface VersionedResource {
  readonly id: string
  readonly organisation_id: string
  readonly workspace_id: string
  readonly collection_id: string
  readonly name: string
  readonly slug: string
  readonly published_version: number
  readonly last_updated_at: string
}

interface Version {
  readonly id: string
  readonly version: number
}

export const versionedTables = <R extends VersionedResource, V extends Version>(
  state: MemoryState,
  options: {
    /** The resource's name in conflict messages: "prompt", "partial". */
    readonly what: string
    /** The id of the resource a version belongs to. */
    readonly resourceOf: (version: V) => string
    /** The resource's model built from its fields (the Schema class's constructor). */
    readonly make: (fields: R) => R
  }
) => {
  const resources = new Table<R>(state, (r) => [`${r.workspace_id}/${r.slug}`])
  const versions = new Table<V>(state, (v) => [`${options.resourceOf(v)}@${v.version}`])
  const { what } = options
  const store = {
    insert: (resource: R, first: V) =>
      state.withTransaction(Effect.gen(function*() {
        const taken = yield* resources.insert(resource.id, resource)
        yield* conflictOn(taken, `A ${what} with slug '${resource.slug}' already exists in this workspace.`, "slug")
        yield* versions.insert(first.id, first)
      })),
    addVersion: (version: V) =>
      Effect.flatMap(
        versions.insert(version.id, version),
        (taken) =>
          conflictOn(
            taken,
            `Version ${version.version} of this ${what} was just created by another request; retry.`,
            null
          )
      ),
    get: (id: string): Effect.Effect<Option.Option<R>> => Effect.sync(() => resources.get(id)),
    list: (
      organisationId: string,
      workspaceId: string | null,
      page: PageRequest,
      collectionId?: string,
      search?: string
    ): Effect.Effect<Page<R>> =>
      Effect.sync(() =>
        resources.page(
          (r) =>
            inScope(r, organisationId, workspaceId) &&
            (collectionId === undefined || r.collection_id === collectionId) &&
            (search === undefined || r.name.toLowerCase().includes(search) || r.slug.includes(search)),
          page
        )
      ),
    getVersion: (resourceId: string, version: number): Effect.Effect<Option.Option<V>> =>
      Effect.sync(() => versions.byUnique(`${resourceId}@${version}`)),
    setPublished: (resourceId: string, version: number, at: string): Effect.Effect<void> =>
      Effect.asVoid(
        resources.replace(resourceId, (r) => options.make({ ...r, published_version: version, last_updated_at: at }))
      )
  }
  return { resources, versions, store }
}
