/**
 * What prompts and partials share: both are named, slugged, versioned resources of a workspace. Where a new
 * one goes, how a reference finds one, the checks on their names and texts and the access check on one are
 * written once here, for both kinds.
 */
import { Effect, Option } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { type Action, ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { findByIdOrSlug } from "../access/ResourceLookup.ts"
import { makeCollectionPlacement } from "../collections/CollectionPlacement.ts"
import { type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { PartialStore, type Prompt, PromptStore } from "./Prompt.ts"

export type Failure = InvalidRequest | Forbidden | NotFound | StoreError

/** What creating or changing a prompt or a partial is given, in common. */
export interface TemplateResourceInput {
  readonly name?: string | undefined
  readonly slug?: string | undefined
  readonly workspace_id?: string | undefined
  readonly collection_id?: string | undefined
  readonly string?: string | undefined
  readonly version_description?: string | undefined
}

/** Given, not blank, and at most `max` characters. */
const validateText = (value: string | undefined, param: string, max: number) => {
  if (value === undefined) return Effect.fail(InvalidRequest.of(`${param} is required.`, param))
  return value.trim().length === 0 || value.length > max
    ? Effect.fail(InvalidRequest.of(`${param} must be 1 to ${max} characters.`, param))
    : Effect.void
}

/** Given, and a name by the shared rule (shared/Rules.ts). */
export const validateName = (name: string | undefined) =>
  name === undefined ? Effect.fail(InvalidRequest.of("name is required.", "name")) : checkName(name)

export const validateTemplateText = (string: string | undefined) => validateText(string, "string", 1_000_000)

/** The policy's grant of `action` on a prompt or partial, which the store's writes take. */
export const allowed = <A extends Action>(
  principal: Principal,
  action: A,
  prompt: { organisation_id: string; workspace_id: string; id: string },
  type = "prompt"
) =>
  ensureAllowed(principal, action, Target.workspace(prompt.organisation_id, prompt.workspace_id), {
    type,
    id: prompt.id
  })

export type TemplateResources = Effect.Success<typeof makeTemplateResources>

export const makeTemplateResources = Effect.gen(function*() {
  const prompts = yield* PromptStore
  const partials = yield* PartialStore
  const workspaces = yield* WorkspaceStore
  const crypto = yield* PlatformCrypto
  const placement = yield* makeCollectionPlacement

  /**
   * A prompt or partial by id, or by slug where the one rule of slugs looks (ResourceLookup.ts): an admin key
   * naming no workspace finds a slug only one of its workspaces has. The prompt store's slug query is
   * organisation-wide, so the workspace's lookup filters it.
   */
  const findPrompt = (principal: Principal, ref: string, workspaceId?: string) =>
    findByIdOrSlug(
      {
        get: prompts.get,
        findBySlug: (workspace, slug) =>
          Effect.map(
            prompts.findBySlug(principal.organisationId, slug),
            (found) => Option.fromUndefinedOr(found.find((p) => p.workspace_id === workspace))
          ),
        findAllBySlug: prompts.findBySlug
      },
      "prompt",
      (p) => p,
      "promptId"
    )(principal, ref, workspaceId)

  const findPartial = findByIdOrSlug(partials, "prompt partial", (p) => p)

  /**
   * Where a new prompt or partial goes, and under which slug: the checks both creations share. The collection
   * named decides the workspace; without one, the workspace named (or the key's) and its default collection.
   */
  const creationPlace = Effect.fnUntraced(function*(principal: Principal, input: TemplateResourceInput) {
    yield* validateName(input.name)
    yield* validateTemplateText(input.string)
    const named = input.collection_id === undefined
      ? undefined
      : yield* placement.namedCollection(principal, input.collection_id, input.workspace_id)
    const workspace = named?.workspace ?? (yield* placement.targetWorkspace(principal, input.workspace_id))
    const creating = yield* ensureAllowed(
      principal,
      "prompts.create",
      Target.workspace(workspace.organisation_id, workspace.id),
      {
        type: "workspace",
        id: workspace.id
      }
    )
    const slug = input.slug ?? slugify(input.name!)
    yield* checkSlug(slug)
    const collection = named?.collection ?? (yield* placement.defaultCollection(creating, workspace))
    return { collection, creating, slug, workspace }
  })

  /**
   * A new prompt's or partial's own fields, once the principal may create it (with the grant that its writes
   * take); version 1 is published.
   */
  const newResource = Effect.fnUntraced(function*(principal: Principal, input: TemplateResourceInput) {
    const { collection, creating, slug, workspace } = yield* creationPlace(principal, input)
    const now = yield* nowIso
    const fields = {
      id: crypto.uuid(),
      organisation_id: workspace.organisation_id,
      workspace_id: workspace.id,
      collection_id: collection.id,
      name: input.name!.trim(),
      slug,
      published_version: 1,
      created_at: now,
      last_updated_at: now
    }
    return { creating, fields }
  })

  /** The policy's list scope, a named workspace looked up where it really is. */
  const listScope = (principal: Principal, workspaceId: string | undefined, action: Action) =>
    ensureListScope(workspaces, principal, workspaceId, action)

  /**
   * What a list covers: `listScope`'s, or with `collectionRef` (an id or slug) that collection's workspace and
   * the collection itself.
   */
  const listPlace = Effect.fnUntraced(function*(
    principal: Principal,
    workspaceId: string | undefined,
    collectionRef: string | undefined,
    action: Action
  ) {
    if (collectionRef === undefined) {
      return { scope: yield* listScope(principal, workspaceId, action), collectionId: undefined }
    }
    const collection = yield* placement.findCollection(principal, collectionRef, workspaceId)
    const scope = yield* listScope(principal, collection.workspace_id, action)
    return { scope, collectionId: collection.id }
  })

  const existingVersion = Effect.fnUntraced(function*(prompt: Prompt, version: number) {
    return yield* requireRow(
      yield* prompts.getVersion(prompt.id, version),
      `version of prompt '${prompt.slug}'`,
      String(version)
    )
  })

  /**
   * The collection `collectionRef` names (an id, or a slug of the resource's workspace) for a prompt or partial
   * to move to: one of its own workspace only (another's is refused by name, `collection_id`).
   */
  const collectionInWorkspace = Effect.fnUntraced(function*(
    principal: Principal,
    resource: { readonly workspace_id: string },
    collectionRef: string
  ) {
    const collection = yield* Effect.catchTag(
      placement.findCollection(principal, collectionRef, resource.workspace_id),
      "InvalidRequest",
      (refused) => Effect.fail(InvalidRequest.of(refused.message, "collection_id"))
    )
    // What the key cannot see answers 404, as everywhere; what it sees in another workspace is refused by name.
    yield* ensureAllowed(
      principal,
      "prompts.update",
      Target.workspace(collection.organisation_id, collection.workspace_id),
      { type: "collection", id: collection.id }
    )
    if (collection.workspace_id !== resource.workspace_id) {
      return yield* InvalidRequest.of(
        `Collection '${collectionRef}' is in another workspace: a prompt or partial moves only between collections of its own workspace.`,
        "collection_id"
      )
    }
    return collection
  })

  return { findPrompt, findPartial, newResource, listScope, listPlace, existingVersion, collectionInWorkspace }
})
