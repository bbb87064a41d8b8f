/**
 * Collections as a principal manages them (Portkey's `/collections`): create, list, read, rename, delete.
 * They hold a workspace's prompts and partials, so they are governed by the prompts' scopes: `prompts.create`,
 * `.list`, `.read`, `.update`, `.delete`. A collection that still holds prompts, partials or collections, and a
 * workspace's default collection, cannot be deleted (409).
 */
import { Context, Effect, Layer } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import {
  Collection,
  type CollectionChange,
  type CollectionInput,
  CollectionStore,
  DEFAULT_COLLECTION_SLUG
} from "./Collection.ts"
import { makeCollectionPlacement } from "./CollectionPlacement.ts"

type Failure = InvalidRequest | Forbidden | NotFound | StoreError

export class Collections extends Context.Service<Collections, {
  readonly create: (principal: Principal, input: CollectionInput) => Effect.Effect<Collection, Failure | Conflict>
  /** `workspaceId` an id or slug; none: the key's workspace, or an admin key's whole organisation. */
  readonly list: (
    principal: Principal,
    workspaceId: string | undefined,
    search: string | undefined,
    page: PageRequest
  ) => Effect.Effect<Page<Collection>, Failure>
  /** `ref` an id, or a slug (ResourceLookup.ts) looked up in `workspaceId` when given. */
  readonly get: (principal: Principal, ref: string, workspaceId?: string) => Effect.Effect<Collection, Failure>
  readonly update: (
    principal: Principal,
    ref: string,
    change: CollectionChange,
    workspaceId?: string
  ) => Effect.Effect<Collection, Failure>
  readonly remove: (
    principal: Principal,
    ref: string,
    workspaceId?: string
  ) => Effect.Effect<Collection, Failure | Conflict>
}>()("@gateway-control/Collections") {
  static readonly layer = Layer.effect(
    Collections,
    Effect.gen(function*() {
      const store = yield* CollectionStore
      const workspaces = yield* WorkspaceStore
      const crypto = yield* PlatformCrypto
      const placement = yield* makeCollectionPlacement
      const useCases = yield* AuditedUseCase
      const writes = grantedWrites(store, {
        insert: "prompts.create",
        update: "prompts.update",
        delete: "prompts.delete"
      })

      const onCollection = <A extends "prompts.read" | "prompts.update" | "prompts.delete">(
        principal: Principal,
        collection: Collection,
        action: A
      ) =>
        ensureAllowed(principal, action, Target.workspace(collection.organisation_id, collection.workspace_id), {
          type: "collection",
          id: collection.id
        })

      const create = Effect.fn("Collections.create")(function*(principal: Principal, input: CollectionInput) {
        yield* checkName(input.name)
        const workspace = yield* placement.targetWorkspace(principal, input.workspace_id)
        const creating = yield* ensureAllowed(
          principal,
          "prompts.create",
          Target.workspace(workspace.organisation_id, workspace.id),
          { type: "workspace", id: workspace.id }
        )
        const slug = input.slug ?? slugify(input.name)
        yield* checkSlug(slug)
        if (slug === DEFAULT_COLLECTION_SLUG) {
          return yield* InvalidRequest.of(
            `The slug '${DEFAULT_COLLECTION_SLUG}' is the workspace's default collection's; choose another.`,
            input.slug === undefined ? "name" : "slug"
          )
        }
        let parent: string | null = null
        if (input.parent_collection_id !== undefined) {
          const found = yield* Effect.catchTag(
            placement.findCollection(principal, input.parent_collection_id, workspace.id),
            "NotFound",
            () =>
              Effect.fail(InvalidRequest.of(
                `No collection '${input.parent_collection_id}' in this workspace.`,
                "parent_collection_id"
              ))
          )
          if (found.workspace_id !== workspace.id) {
            return yield* InvalidRequest.of(
              "A parent collection must be in the same workspace.",
              "parent_collection_id"
            )
          }
          parent = found.id
        }
        const now = yield* nowIso
        const collection = new Collection({
          id: crypto.uuid(),
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          name: input.name.trim(),
          slug,
          parent_collection_id: parent,
          is_default: false,
          created_at: now,
          last_updated_at: now
        })
        yield* writes.insert(creating, collection)
        return collection
      })

      const list = Effect.fn("Collections.list")(function*(
        principal: Principal,
        workspaceRef: string | undefined,
        search: string | undefined,
        page: PageRequest
      ) {
        const workspaceId = workspaceRef === undefined
          ? undefined
          : (yield* placement.workspaceByRef(principal, workspaceRef)).id
        const scope = yield* ensureListScope(workspaces, principal, workspaceId, "prompts.list")
        return yield* store.list(principal.organisationId, scope, search ?? null, page)
      })

      const get = Effect.fn("Collections.get")(function*(principal: Principal, ref: string, workspaceId?: string) {
        const collection = yield* placement.findCollection(principal, ref, workspaceId)
        yield* onCollection(principal, collection, "prompts.read")
        return collection
      })

      const update = Effect.fn("Collections.update")(
        function*(principal: Principal, ref: string, change: CollectionChange, workspaceId?: string) {
          const collection = yield* placement.findCollection(principal, ref, workspaceId)
          const updating = yield* onCollection(principal, collection, "prompts.update")
          yield* checkName(change.name)
          const updated = new Collection({ ...collection, name: change.name.trim(), last_updated_at: yield* nowIso })
          yield* writes.update(updating, updated)
          return updated
        }
      )

      const remove = Effect.fn("Collections.remove")(
        function*(principal: Principal, ref: string, workspaceId?: string) {
          const collection = yield* placement.findCollection(principal, ref, workspaceId)
          const deleting = yield* onCollection(principal, collection, "prompts.delete")
          if (collection.is_default) {
            return yield* new Conflict({ message: "A workspace's default collection cannot be deleted.", param: null })
          }
          const held = yield* store.contents(collection.id)
          if (held.prompts + held.partials + held.collections > 0) {
            return yield* new Conflict({
              message: `Collection '${collection.slug}' still holds ${held.prompts} prompt(s), ${held.partials} ` +
                `partial(s) and ${held.collections} collection(s); delete or move them first.`,
              param: null
            })
          }
          yield* writes.delete(deleting, collection.id)
          return collection
        }
      )

      return Collections.of({
        create: (principal, input) =>
          useCases.run(resourceChange("collections.create", principal, input), create(principal, input)),
        list,
        get,
        update: (principal, ref, change, workspaceId) =>
          useCases.run(
            resourceChange("collections.update", principal, change, ref),
            update(principal, ref, change, workspaceId)
          ),
        remove: (principal, ref, workspaceId) =>
          useCases.run(resourceChange("collections.delete", principal, null, ref), remove(principal, ref, workspaceId))
      })
    })
  )
}
