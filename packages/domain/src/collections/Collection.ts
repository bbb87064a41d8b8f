/**
 * A collection: a named folder of a workspace's prompts and partials, as Portkey's control plane has them.
 * Every prompt and partial is in exactly one collection of its workspace; each workspace has one default
 * collection (slug `default`), made when the workspace's first prompt or partial names none, which cannot be
 * deleted. A collection may sit in a parent collection of the same workspace.
 */
import { Context, type Effect, type Option, Schema, Struct } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { Name, Slug } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"

/** The slug of every workspace's default collection; no other collection may take it. */
export const DEFAULT_COLLECTION_SLUG = "default"

export class Collection extends Schema.Class<Collection>("Collection")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  name: Name,
  slug: Slug,
  parent_collection_id: Schema.NullOr(Schema.String),
  is_default: Schema.Boolean,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** A new collection, in the API's casing: its workspace (the key's by default) and parent are ids or slugs. */
export const CreateCollection = Schema.Struct({
  ...Struct.pick(Collection.fields, ["name"]),
  slug: Schema.optionalKey(Collection.fields.slug),
  workspace_id: Schema.optionalKey(Schema.String),
  parent_collection_id: Schema.optionalKey(Schema.String)
})
export type CollectionInput = typeof CreateCollection.Type

/** A new name: Portkey's update takes nothing else. */
export const UpdateCollection = Schema.Struct(Struct.pick(Collection.fields, ["name"]))
export type CollectionChange = typeof UpdateCollection.Type

/** What is in a collection: deleting one that holds anything is refused. */
export interface CollectionContents {
  readonly prompts: number
  readonly partials: number
  readonly collections: number
}

export class CollectionStore extends Context.Service<CollectionStore, {
  /** `Conflict` when the slug is taken in the workspace, or the workspace has a default already. */
  readonly insert: (collection: Collection) => Effect.Effect<void, Conflict | StoreError>
  /** Replaces the name and last_updated_at; false when there was none. */
  readonly update: (collection: Collection) => Effect.Effect<boolean, StoreError>
  readonly get: (id: string) => Effect.Effect<Option.Option<Collection>, StoreError>
  readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<Collection>, StoreError>
  readonly findAllBySlug: (organisationId: string, slug: string) => Effect.Effect<ReadonlyArray<Collection>, StoreError>
  readonly defaultOf: (workspaceId: string) => Effect.Effect<Option.Option<Collection>, StoreError>
  /** The organisation's, or one workspace's; `search` matches names, case-insensitively. */
  readonly list: (
    organisationId: string,
    workspaceId: string | null,
    search: string | null,
    page: PageRequest
  ) => Effect.Effect<Page<Collection>, StoreError>
  readonly contents: (id: string) => Effect.Effect<CollectionContents, StoreError>
  /** Deletes the collection; false when there was none. */
  readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
}>()("@gateway-control/CollectionStore") {}
