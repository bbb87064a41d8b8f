/**
 * The key-creation rules of the policy: which keys a principal may create (the specification's role table,
 * with no escalation), whose name a workspace/user key may carry, and how a created key's user is chosen.
 * Like `Policy.ts`, the only place that turns these decisions into `Forbidden` or a hiding `NotFound`.
 */
import { Effect } from "effect"
import type { ApiKeyType } from "../credentials/ApiKey.ts"
import type { Forbidden, NotFound } from "../shared/Errors.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import type { OrganisationRole, WorkspaceRole } from "./AccessModel.ts"
import {
  type AccessGrant,
  authorize,
  decided,
  type Decision,
  ensureAllowed,
  isAdminKey,
  type ResourceRef,
  Target
} from "./Policy.ts"
import type { Principal } from "./Principal.ts"
import type { Scope } from "./Scopes.ts"

const allowed: Decision = { _tag: "Allowed" }
const denied = (reason: string): Decision => ({ _tag: "Denied", reason })

export interface KeyCreation {
  readonly type: ApiKeyType
  readonly organisationId: string
  /** The new key's workspace; null for an admin key. */
  readonly workspaceId: string | null
  readonly scopes: ReadonlyArray<Scope>
}

/** The action that doing `verb` to a key of each kind is. */
const keyActions = <const Verb extends "create" | "rotate">(verb: Verb) =>
  ({
    "organisation-service": `api_keys.${verb}.organisation_service`,
    "workspace-service": `api_keys.${verb}.workspace_service`,
    "workspace-user": `api_keys.${verb}.workspace_user`
  }) as const satisfies Record<ApiKeyType, string>

/** The action that creating a key of each kind is. */
export const KeyCreationActions = keyActions("create")

export type KeyCreationAction = (typeof KeyCreationActions)[ApiKeyType]

/** The action that rotating a key of each kind is: issuing a new secret with the key's powers. */
export const KeyRotationActions = keyActions("rotate")

export type KeyRotationAction = (typeof KeyRotationActions)[ApiKeyType]

/** Where the new key is to live: its workspace, or its organisation for an admin key. */
const keyTarget = (request: KeyCreation): Target =>
  request.workspaceId === null
    ? Target.organisation(request.organisationId)
    : Target.workspace(request.organisationId, request.workspaceId)

/**
 * May this principal create this key? On top of `authorize`: no escalation. The new key's scopes are a
 * subset of the creator's, and its reach (organisation or one workspace) is no wider than the creator's.
 */
export const authorizeKeyCreation = (principal: Principal, request: KeyCreation): Decision =>
  authorizeKeyIssue(principal, request, KeyCreationActions[request.type])

/**
 * May this principal rotate this key? A new secret carries the key's powers, so: the rules of creating such a
 * key (no escalation, no wider reach), with the kind's rotate scope instead of its create scope.
 */
export const authorizeKeyRotation = (principal: Principal, key: KeyCreation): Decision =>
  authorizeKeyIssue(principal, key, KeyRotationActions[key.type])

const authorizeKeyIssue = (
  principal: Principal,
  request: KeyCreation,
  action: KeyCreationAction | KeyRotationAction
): Decision => {
  const wantsOrganisation = request.type === "organisation-service"
  if (wantsOrganisation !== (request.workspaceId === null)) {
    return denied(wantsOrganisation ? "Admin keys belong to no workspace." : "Workspace keys need a workspace.")
  }
  const decision = authorize(principal, action, keyTarget(request))
  if (decision._tag !== "Allowed") return decision
  return grantable(principal, request.scopes)
}

/** No escalation: a key gives a key (a new one, or one it changes) only scopes it holds itself. */
const grantable = (principal: Principal, scopes: ReadonlyArray<Scope>): Decision => {
  const missing = scopes.filter((scope) => !principal.scopes.has(scope))
  return missing.length > 0 ? denied(`A key cannot grant scopes it lacks: ${missing.join(", ")}.`) : allowed
}

/** What an update of a key changes, as far as the policy cares. */
export interface KeyChange {
  readonly keyId: string
  /** The scopes the key is to have; undefined when they stay. */
  readonly scopes: ReadonlyArray<Scope> | undefined
  /** Whether its rate limits change. */
  readonly rateLimits: boolean
}

/**
 * May this principal, allowed `api_keys.update` on the key, make this change? No escalation: the key's new
 * scopes are the principal's too; and no key lifts its own rate limits.
 */
export const authorizeKeyChange = (principal: Principal, change: KeyChange): Decision => {
  const scopes = grantable(principal, change.scopes ?? [])
  if (scopes._tag !== "Allowed") return scopes
  if (change.rateLimits && change.keyId === principal.keyId) {
    return denied("A key cannot change its own rate limits; use another key.")
  }
  return allowed
}

/** `authorizeKeyChange` as an effect. */
export const ensureKeyChange = (principal: Principal, change: KeyChange): Effect.Effect<void, Forbidden | NotFound> =>
  decided(authorizeKeyChange(principal, change), { type: "API key", id: change.keyId })

/** The user a workspace/user key is to act as, as the store knows them. */
export interface KeyUser {
  readonly userId: string
  readonly organisationId: string
  readonly organisationRole: OrganisationRole
  /** Their role in the key's workspace; null when they are not a member of it. */
  readonly workspaceRole: WorkspaceRole | null
}

/** `Decision`, plus: the named user cannot carry a key of this workspace at all, whoever asks. */
export type KeyUserDecision = Decision | { readonly _tag: "NotMember"; readonly reason: string }

type Standing = "organisation owner" | "organisation admin" | "workspace manager" | "workspace member" | "no role"

/** Organisation owners and admins stand above any workspace role, whatever their membership's role. */
const RANK: Record<Standing, number> = {
  "organisation owner": 4,
  "organisation admin": 3,
  "workspace manager": 2,
  "workspace member": 1,
  "no role": 0
}

const standingOf = (organisationRole: OrganisationRole | null, workspaceRole: WorkspaceRole | null): Standing =>
  organisationRole === "owner"
    ? "organisation owner"
    : organisationRole === "admin"
    ? "organisation admin"
    : workspaceRole === "manager"
    ? "workspace manager"
    : workspaceRole === "member"
    ? "workspace member"
    : "no role"

/** The creator's standing. A workspace service key passes manager-only actions, so it stands as a manager. */
const creatorStanding = (creator: Principal): Standing =>
  creator.keyType === "workspace-service" && creator.userId === null
    ? "workspace manager"
    : standingOf(creator.organisationRole, creator.workspaceRole)

/**
 * May this principal create a workspace/user key that acts as `target`? Asked after `authorizeKeyCreation`
 * allowed the key itself. A key acts as its user, and the audit log names that user for everything the key
 * does, so:
 * - the user must be a member of the key's workspace (`NotMember`, whoever asks);
 * - organisation owners and admins, and admin keys without a user, may name any member;
 * - anyone else may name itself, or a member whose standing is not above its own (owner > admin >
 *   workspace manager > workspace member).
 */
export const mayCreateKeyFor = (creator: Principal, target: KeyUser): KeyUserDecision => {
  if (target.organisationId !== creator.organisationId) return { _tag: "Hidden" }
  if (target.workspaceRole === null) {
    return {
      _tag: "NotMember",
      reason: `User '${target.userId}' is not a member of this workspace: add them to it first, or name a member.`
    }
  }
  if (target.userId === creator.userId) return allowed
  const own = creatorStanding(creator)
  const organisationWide = own === "organisation owner" || own === "organisation admin" ||
    (isAdminKey(creator) && creator.userId === null)
  if (organisationWide) return allowed
  const theirs = standingOf(target.organisationRole, target.workspaceRole)
  if (RANK[theirs] > RANK[own]) {
    return denied(
      `This key (${own}) may not create keys acting as user '${target.userId}' (${theirs}): ` +
        "it may name its own user or a workspace member whose role is not above its own."
    )
  }
  return allowed
}

/**
 * `authorizeKeyCreation` as an effect, which on success hands back the grant of the creation action that the
 * key's insert takes; a workspace the creator cannot see answers not found.
 */
export const ensureKeyCreation = (
  principal: Principal,
  request: KeyCreation
): Effect.Effect<AccessGrant<KeyCreationAction>, Forbidden | NotFound> => {
  const resource: ResourceRef = { type: "workspace", id: request.workspaceId ?? "" }
  // Allowed, the creation includes the creation action on the key's target: `ensureAllowed` grants it.
  return Effect.andThen(
    decided(authorizeKeyCreation(principal, request), resource),
    ensureAllowed(principal, KeyCreationActions[request.type], keyTarget(request), resource)
  )
}

/**
 * `authorizeKeyRotation` as an effect, which on success hands back the grant of the rotation action that the
 * key's rotation takes. The key is one the principal was allowed to read, so it is never hidden here.
 */
export const ensureKeyRotation = (
  principal: Principal,
  key: KeyCreation & { readonly id: string }
): Effect.Effect<AccessGrant<KeyRotationAction>, Forbidden | NotFound> => {
  const resource: ResourceRef = { type: "API key", id: key.id }
  return Effect.andThen(
    decided(authorizeKeyRotation(principal, key), resource),
    ensureAllowed(principal, KeyRotationActions[key.type], keyTarget(key), resource)
  )
}

/** `mayCreateKeyFor` as an effect: a non-member is a bad request, whoever asks. */
export const ensureKeyUser = (
  creator: Principal,
  target: KeyUser
): Effect.Effect<void, InvalidRequest | Forbidden | NotFound> => {
  const decision = mayCreateKeyFor(creator, target)
  return decision._tag === "NotMember"
    ? Effect.fail(InvalidRequest.of(decision.reason, "user_id"))
    : decided(decision, { type: "user", id: target.userId })
}

/**
 * The user a new key acts as, as the server records it: a workspace/user key its named user, an admin key
 * the user of the key that created it, a workspace service key none.
 */
export const newKeyUser = (creator: Principal, type: ApiKeyType, namedUserId: string | null): string | null =>
  type === "workspace-user" ? namedUserId : type === "organisation-service" ? creator.userId : null
