/**
 * Prompt templates and partials: named resources of a workspace with immutable, numbered versions. A
 * prompt has a published version and labels (`production`, `staging`, `development`, and any other;
 * Label.ts) that point at versions; a partial's newest version is published unless another is chosen.
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { Name, Slug } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"

export const PromptType = Schema.Literals(["chat", "completion"])
export type PromptType = typeof PromptType.Type

export const JsonObject = Schema.Record(Schema.String, Schema.Unknown)

/** What a prompt and a partial both are: a named, slugged resource of a workspace with a published version. */
const TemplateResourceFields = {
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  /** The collection of its workspace that holds it (collections/Collection.ts). */
  collection_id: Schema.String,
  name: Name,
  slug: Slug,
  published_version: Schema.Int,
  created_at: Schema.String,
  last_updated_at: Schema.String
}

export class Prompt extends Schema.Class<Prompt>("Prompt")(TemplateResourceFields) {}

export class PromptVersion extends Schema.Class<PromptVersion>("PromptVersion")({
  id: Schema.String,
  prompt_id: Schema.String,
  version: Schema.Int,
  string: Schema.String,
  parameters: JsonObject,
  model: Schema.NullOr(Schema.String),
  type: PromptType,
  is_raw_template: Schema.Boolean,
  version_description: Schema.NullOr(Schema.String),
  template_metadata: JsonObject,
  /**
   * Portkey's `virtual_key` of the version: the slug of the virtual key its completions are meant to go
   * through. Stored and returned; the control plane makes no model calls, so nothing here resolves it.
   */
  virtual_key: Schema.NullOr(Schema.String),
  created_at: Schema.String
}) {}

export class PromptLabel extends Schema.Class<PromptLabel>("PromptLabel")({
  prompt_id: Schema.String,
  label: Schema.String,
  version: Schema.Int,
  last_updated_at: Schema.String
}) {}

export const PartialStatus = Schema.Literals(["active", "archived"])
export type PartialStatus = typeof PartialStatus.Type

/** An archived partial stays readable, and renders as a missing one. */
export class Partial extends Schema.Class<Partial>("Partial")({
  ...TemplateResourceFields,
  description: Schema.NullOr(Schema.String),
  status: PartialStatus
}) {}

export class PartialVersion extends Schema.Class<PartialVersion>("PartialVersion")({
  id: Schema.String,
  partial_id: Schema.String,
  version: Schema.Int,
  string: Schema.String,
  version_description: Schema.NullOr(Schema.String),
  created_at: Schema.String
}) {}

/** What a store of prompts and a store of partials do alike, for a resource `R` with versions `V`. */
interface VersionedResourceStore<R, V> {
  /** Inserts a resource with its first version; `Conflict` when the slug is taken in the workspace. */
  readonly insert: (resource: R, first: V) => Effect.Effect<void, Conflict | StoreError>
  /** Appends a version; `Conflict` when a concurrent update took the number. */
  readonly addVersion: (version: V) => Effect.Effect<void, Conflict | StoreError>
  readonly get: (id: string) => Effect.Effect<Option.Option<R>, StoreError>
  /**
   * The organisation's, or one workspace's; only one collection's when `collectionId` is given; with `search`
   * (lower case), only those whose name, in lower case, or slug holds it.
   */
  readonly list: (
    organisationId: string,
    workspaceId: string | null,
    page: PageRequest,
    collectionId?: string,
    search?: string
  ) => Effect.Effect<Page<R>, StoreError>
  readonly getVersion: (id: string, version: number) => Effect.Effect<Option.Option<V>, StoreError>
  readonly setPublished: (id: string, version: number, at: string) => Effect.Effect<void, StoreError>
}

export class PromptStore extends Context.Service<
  PromptStore,
  VersionedResourceStore<Prompt, PromptVersion> & {
    /** Prompts with this slug in the organisation's workspaces (one per workspace at most). */
    readonly findBySlug: (organisationId: string, slug: string) => Effect.Effect<ReadonlyArray<Prompt>, StoreError>
    readonly latestVersion: (promptId: string) => Effect.Effect<Option.Option<PromptVersion>, StoreError>
    readonly versions: (promptId: string) => Effect.Effect<ReadonlyArray<PromptVersion>, StoreError>
    readonly setLabel: (label: PromptLabel) => Effect.Effect<void, StoreError>
    readonly labels: (promptId: string) => Effect.Effect<ReadonlyArray<PromptLabel>, StoreError>
    /**
     * Renames the pointers named `from` of the organisation's prompts, or of one workspace's: a label's new
     * name follows it wherever it points.
     */
    readonly renameLabel: (
      organisationId: string,
      workspaceId: string | null,
      from: string,
      to: string
    ) => Effect.Effect<void, StoreError>
    /** Removes the pointers named `label` of the organisation's prompts, or of one workspace's. */
    readonly removeLabel: (
      organisationId: string,
      workspaceId: string | null,
      label: string
    ) => Effect.Effect<void, StoreError>
    /** Replaces the prompt's own fields (name, collection); false when there was none. */
    readonly update: (prompt: Prompt) => Effect.Effect<boolean, StoreError>
    /** Deletes the prompt with its versions and labels; false when there was none. */
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/PromptStore") {}

export class PartialStore extends Context.Service<
  PartialStore,
  VersionedResourceStore<Partial, PartialVersion> & {
    readonly findBySlug: (workspaceId: string, slug: string) => Effect.Effect<Option.Option<Partial>, StoreError>
    /** Partials with this slug in the organisation's workspaces (one per workspace at most). */
    readonly findAllBySlug: (organisationId: string, slug: string) => Effect.Effect<ReadonlyArray<Partial>, StoreError>
    /** Replaces the partial's own fields (name, collection, description, status); false when there was none. */
    readonly update: (partial: Partial) => Effect.Effect<boolean, StoreError>
    readonly versions: (partialId: string) => Effect.Effect<ReadonlyArray<PartialVersion>, StoreError>
    /** Deletes the partial with its versions; false when there was none. */
    readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
  }
>()("@gateway-control/PartialStore") {}
