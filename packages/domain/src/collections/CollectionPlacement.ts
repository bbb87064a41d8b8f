/**
 * Where a new prompt or partial goes: the collection `collection_id` names (an id, or a slug by the one rule of
 * slugs, ResourceLookup.ts), which decides its workspace; else the default collection of the workspace named
 * (or the key's), made on first need. Shared by the collections service and the prompts'.
 */
import { Effect, Option } from "effect"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { AccessGrant } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { findByIdOrSlug } from "../access/ResourceLookup.ts"
import { InvalidRequest, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { Collection, CollectionStore, DEFAULT_COLLECTION_SLUG } from "./Collection.ts"

export const makeCollectionPlacement = Effect.gen(function*() {
  const collections = yield* CollectionStore
  const workspaces = yield* WorkspaceStore
  const crypto = yield* PlatformCrypto
  const writes = grantedWrites(collections, { insert: "prompts.create" })

  /** A workspace by id, or by its slug in the caller's organisation (Portkey takes either). */
  const workspaceByRef = Effect.fnUntraced(function*(principal: Principal, ref: string) {
    const byId = yield* workspaces.get(ref)
    const found = Option.isSome(byId) ? byId : yield* workspaces.findBySlug(principal.organisationId, ref)
    return yield* requireRow(found, "workspace", ref)
  })

  /** The workspace a new resource goes to: the named one (id or slug), else the key's own. */
  const targetWorkspace = Effect.fnUntraced(function*(principal: Principal, workspaceRef: string | undefined) {
    const ref = workspaceRef ?? principal.workspaceId
    if (ref === null) return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
    return yield* workspaceByRef(principal, ref)
  })

  const findCollection = findByIdOrSlug(collections, "collection", (c) => c, "collectionId")

  /**
   * The collection `collectionRef` names for a new resource (a slug is looked up in `workspaceRef` when given),
   * with its workspace; a workspace named as well must be the collection's.
   */
  const namedCollection = Effect.fnUntraced(
    function*(principal: Principal, collectionRef: string, workspaceRef: string | undefined) {
      const workspace = workspaceRef === undefined ? undefined : yield* workspaceByRef(principal, workspaceRef)
      const collection = yield* Effect.catchTag(
        findCollection(principal, collectionRef, workspace?.id),
        "InvalidRequest",
        (refused) => Effect.fail(InvalidRequest.of(refused.message, "collection_id"))
      )
      if (workspace !== undefined && workspace.id !== collection.workspace_id) {
        return yield* InvalidRequest.of(
          `Collection '${collectionRef}' is not in workspace '${workspaceRef}'.`,
          "collection_id"
        )
      }
      const home = yield* requireRow(
        yield* workspaces.get(collection.workspace_id),
        "workspace",
        collection.workspace_id
      )
      return { collection, workspace: home }
    }
  )

  /**
   * The workspace's default collection, made now when it has none yet (with the grant of the change that needs
   * it). Two requests making it at once: one inserts, the other answers 409 `conflict` and may be retried.
   */
  const defaultCollection = Effect.fnUntraced(function*(
    grant: AccessGrant<"prompts.create">,
    workspace: { readonly id: string; readonly organisation_id: string }
  ) {
    const existing = yield* collections.defaultOf(workspace.id)
    if (Option.isSome(existing)) return existing.value
    const now = yield* nowIso
    const made = new Collection({
      id: crypto.uuid(),
      organisation_id: workspace.organisation_id,
      workspace_id: workspace.id,
      name: "Default",
      slug: DEFAULT_COLLECTION_SLUG,
      parent_collection_id: null,
      is_default: true,
      created_at: now,
      last_updated_at: now
    })
    yield* writes.insert(grant, made)
    return made
  })

  return { targetWorkspace, workspaceByRef, findCollection, namedCollection, defaultCollection }
})

export type CollectionPlacement = Effect.Success<typeof makeCollectionPlacement>
