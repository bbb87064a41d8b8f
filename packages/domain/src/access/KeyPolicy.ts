/**
 * The key rules of the policy: which keys a principal may create (the specification's role table, with no
 * escalation), whom a key may act as, how long it may live, and how a created key's user and expiry are chosen.
 * Every key write (create, rotate, update, revoke) goes through `authorizeKeyWrite`, and the key store's writes
 * take its proof (`KeyGrant`). Like `Policy.ts`, the only place that turns these decisions into `Forbidden` or
 * a hiding `NotFound`.
 */
import { Effect } from "effect"
import type { ApiKeyType } from "../credentials/ApiKey.ts"
import type { Forbidden, NotFound } from "../shared/Errors.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import type { OrganisationRole, WorkspaceRole } from "./AccessModel.ts"
import {
  type AccessGrant,
  type Action,
  authorize,
  decided,
  type Decision,
  ensureAllowed,
  isAdminKey,
  type ResourceRef,
  Target
} from "./Policy.ts"
import type { Principal } from "./Principal.ts"
import { isScope, type Scope } from "./Scopes.ts"

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

/**
 * May this principal create keys of this kind there at all? Asked before the key's user is looked up, so a
 * caller that may not create such keys learns nothing about users; `ensureKeyCreation` decides the key itself.
 */
export const ensureKeyCreationAllowed = (
  principal: Principal,
  request: KeyCreation
): Effect.Effect<void, Forbidden | NotFound> =>
  decided(authorizeKeyCreation(principal, request), { type: "workspace", id: request.workspaceId ?? "" })

// ---------------------------------------------------------------------------------------------------------
// Whom a key acts as, and until when

/**
 * The user a key acts as, as the store knows them now: a workspace/user key's user, an admin key's (its user's
 * organisation role is what the key may do as an owner or admin).
 */
export interface KeyUser {
  readonly userId: string
  readonly organisationId: string
  /** Their organisation role; null when they are no longer a user of the organisation. */
  readonly organisationRole: OrganisationRole | null
  /** Their role in the key's workspace; null when they are not a member of it (always, for an admin key). */
  readonly workspaceRole: WorkspaceRole | null
}

/** `Decision`, plus: the user cannot carry a key of this kind and place at all, whoever asks (400, `user_id`). */
export type KeyUserDecision = Decision | { readonly _tag: "UnfitUser"; readonly reason: string }

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

/**
 * The acting key's standing. A workspace service key passes manager-only actions, so it stands as a manager;
 * an admin key without a user passes everything an organisation admin's does and no owner-only action, so it
 * stands as an organisation admin.
 */
const actorStanding = (actor: Principal): Standing =>
  actor.userId === null
    ? isAdminKey(actor) ? "organisation admin" : "workspace manager"
    : standingOf(actor.organisationRole, actor.workspaceRole)

/**
 * What acting as this standing through a key of this kind is worth. On a workspace key an organisation owner
 * can do nothing an organisation admin cannot (both manage every workspace and may name any member), so it
 * ranks as an admin there; on an admin key the owner's own powers (making owners) count.
 */
const rankOn = (type: ApiKeyType, standing: Standing): number =>
  type !== "organisation-service" && standing === "organisation owner" ? RANK["organisation admin"] : RANK[standing]

/**
 * Issuing a key (creating it, or giving it a new secret) makes it work; changing or revoking it does not. A
 * key is issued only to someone who can carry it: a workspace/user key's user must be a member of its
 * workspace, an admin key's user an organisation owner or admin.
 */
export type KeyUse = "issue" | "change"

const unfitUser = (type: ApiKeyType, user: KeyUser): KeyUserDecision | undefined => {
  if (type === "workspace-user" && user.workspaceRole === null) {
    return {
      _tag: "UnfitUser",
      reason: `User '${user.userId}' is not a member of this workspace: add them to it first, or name a member.`
    }
  }
  if (type === "organisation-service" && user.organisationRole !== "owner" && user.organisationRole !== "admin") {
    return {
      _tag: "UnfitUser",
      reason: `User '${user.userId}' is not an organisation owner or admin: an admin key acts as one of them.`
    }
  }
  return undefined
}

/**
 * May `actor` act as `user` through a key of kind `type`? The one "may act as" rule, which every key write
 * (create, rotate, update, revoke) goes through: a key acts as its user, and the audit log names that user for
 * everything the key does, so a key creates, rotates, changes or revokes only keys acting as
 * - nobody (a key without a user), or its own user;
 * - a user whose standing on that kind of key is not above its own (owner > admin > workspace manager >
 *   workspace member; on a workspace key an owner ranks as an admin).
 * A user of another organisation is hidden; issuing to a user who cannot carry the key is `UnfitUser`.
 */
export const mayActAs = (actor: Principal, type: ApiKeyType, user: KeyUser | null, use: KeyUse): KeyUserDecision => {
  if (user === null) return allowed
  if (user.organisationId !== actor.organisationId) return { _tag: "Hidden" }
  const unfit = use === "issue" ? unfitUser(type, user) : undefined
  if (unfit !== undefined) return unfit
  if (user.userId === actor.userId) return allowed
  const own = actorStanding(actor)
  const theirs = standingOf(user.organisationRole, user.workspaceRole)
  if (rankOn(type, theirs) > RANK[own]) {
    return denied(
      `This key (${own}) may not act as user '${user.userId}' (${theirs}) on a ${type} key: it may create, ` +
        "rotate, change or revoke keys acting as its own user, or as a user whose role is not above its own."
    )
  }
  return allowed
}

/** Whose name a new workspace/user key may carry: `mayActAs` on issuing one. */
export const mayCreateKeyFor = (creator: Principal, target: KeyUser): KeyUserDecision =>
  mayActAs(creator, "workspace-user", target, "issue")

/**
 * The one lifetime cap: nothing a key issues or changes outlives it. The resulting key's `expires_at` is no
 * later than the acting key's (when that has one), so no key extends its own lifetime and no key makes one
 * that lasts longer than itself.
 */
export const withinLifetime = (actor: Principal, expiresAt: string | null): Decision =>
  actor.expiresAt === null || (expiresAt !== null && Date.parse(expiresAt) <= Date.parse(actor.expiresAt))
    ? allowed
    : denied(
      `This API key expires at ${actor.expiresAt}; a key it creates, rotates or changes may not outlive it ` +
        `(expires_at at most ${actor.expiresAt}).`
    )

/** The user a new key acts as: a workspace/user key its named user, an admin key the named user or else its creator's, a workspace service key none. */
export const newKeyUser = (creator: Principal, type: ApiKeyType, namedUserId: string | null): string | null =>
  type === "workspace-service" ? null : type === "organisation-service" ? namedUserId ?? creator.userId : namedUserId

/** A new key's expiry: the one asked for, else the creator's (none when the creator has none). */
export const newKeyExpiry = (creator: Principal, requested: string | null): string | null =>
  requested ?? creator.expiresAt

// ---------------------------------------------------------------------------------------------------------
// Key writes: every one through `authorizeKeyWrite`

/** A key as the key rules see it: the stored record's fields they decide on. */
export interface KeyFacts {
  readonly id: string
  readonly type: ApiKeyType
  readonly organisation_id: string
  readonly workspace_id: string | null
  readonly user_id: string | null
  readonly scopes: ReadonlyArray<string>
  readonly expires_at: string | null
}

/**
 * A write of a key: the key as it will be stored (`create`), as it is (`rotate`, `revoke`), or before and after
 * (`update`); and the user it acts as, looked up by the service (null for a key without a user).
 */
export type KeyWrite =
  | { readonly op: "create" | "rotate" | "revoke"; readonly key: KeyFacts; readonly user: KeyUser | null }
  | {
    readonly op: "update"
    readonly key: KeyFacts
    readonly user: KeyUser | null
    readonly changed: KeyFacts
    /** Whether the update sets the key's scopes, and its rate limits. */
    readonly scopesChanged: boolean
    readonly rateLimitsChanged: boolean
  }

const factsOf = (key: KeyFacts): KeyCreation => ({
  type: key.type,
  organisationId: key.organisation_id,
  workspaceId: key.workspace_id,
  scopes: key.scopes.filter(isScope)
})

/** The key a write leaves behind, if it leaves one that works (a revoked key does not). */
const resultOf = (write: KeyWrite): KeyFacts | undefined =>
  write.op === "update" ? write.changed : write.op === "revoke" ? undefined : write.key

interface Step {
  readonly decision: () => KeyUserDecision
  readonly resource: ResourceRef
}

/** The decisions a write needs, in order: its action's own, then the user it acts as and its lifetime. */
const stepsOf = (principal: Principal, write: KeyWrite): ReadonlyArray<Step> => {
  const { key, user } = write
  const asKey: ResourceRef = { type: "API key", id: key.id }
  const own: Step = {
    resource: write.op === "create" ? { type: "workspace", id: key.workspace_id ?? "" } : asKey,
    decision: () => {
      switch (write.op) {
        case "create":
          return authorizeKeyCreation(principal, factsOf(key))
        case "rotate":
          return authorizeKeyRotation(principal, factsOf(key))
        case "revoke":
          return authorize(principal, "api_keys.delete", Target.of(key))
        case "update":
          return authorizeKeyUpdate(principal, write)
      }
    }
  }
  // The user must be the key's: a service that looked up someone else (or no one) has a bug, refused here.
  const sameUser: Step = {
    resource: asKey,
    decision: () =>
      (user?.userId ?? null) === key.user_id
        ? allowed
        : denied(`The user this key acts as ('${key.user_id}') was not looked up; nothing was changed.`)
  }
  const actsAs: Step = {
    resource: { type: "user", id: user?.userId ?? "" },
    decision: () =>
      mayActAs(principal, key.type, user, write.op === "create" || write.op === "rotate" ? "issue" : "change")
  }
  const result = resultOf(write)
  const lifetime: Step = {
    resource: asKey,
    decision: () => result === undefined ? allowed : withinLifetime(principal, result.expires_at)
  }
  return [own, sameUser, actsAs, lifetime]
}

/** An update: `api_keys.update` on the key, no new scope past the updater's, no key lifting its own limits. */
const authorizeKeyUpdate = (principal: Principal, write: Extract<KeyWrite, { op: "update" }>): Decision => {
  const decision = authorize(principal, "api_keys.update", Target.of(write.key))
  if (decision._tag !== "Allowed") return decision
  const { changed, key } = write
  if (
    changed.id !== key.id || changed.type !== key.type || changed.organisation_id !== key.organisation_id ||
    changed.workspace_id !== key.workspace_id || changed.user_id !== key.user_id
  ) {
    return denied("An update changes a key's name, description, scopes, expiry or rate limits only.")
  }
  if (write.scopesChanged) {
    const scopes = grantable(principal, changed.scopes.filter(isScope))
    if (scopes._tag !== "Allowed") return scopes
  }
  if (write.rateLimitsChanged && key.id === principal.keyId) {
    return denied("A key cannot change its own rate limits; use another key.")
  }
  return allowed
}

/** May this principal make this write? The first refusal among its action's rules, "may act as" and the lifetime cap. */
export const authorizeKeyWrite = (principal: Principal, write: KeyWrite): KeyUserDecision => {
  for (const step of stepsOf(principal, write)) {
    const decision = step.decision()
    if (decision._tag !== "Allowed") return decision
  }
  return allowed
}

/** Known to this module only: nothing else can construct a `KeyGrant`. */
const keyRulesChecked: unique symbol = Symbol("keyRulesChecked")

/**
 * Proof that a key write passed `authorizeKeyWrite`: the API key store's writes take one (`keyWrites`,
 * credentials/internal/keyWrites.ts), so no path writes a key without the "may act as" rule and the lifetime
 * cap. It carries the policy's grant of the write's action.
 */
export class KeyGrant<out A extends Action> {
  readonly grant: AccessGrant<A>
  readonly checkedBy: typeof keyRulesChecked
  constructor(checkedBy: typeof keyRulesChecked, grant: AccessGrant<A>) {
    this.checkedBy = checkedBy
    this.grant = grant
  }
}

const ensureKeyWrite = <A extends Action>(
  principal: Principal,
  write: KeyWrite,
  action: A,
  target: Target
): Effect.Effect<KeyGrant<A>, InvalidRequest | Forbidden | NotFound> =>
  Effect.gen(function*() {
    for (const step of stepsOf(principal, write)) {
      const decision = step.decision()
      if (decision._tag === "UnfitUser") return yield* InvalidRequest.of(decision.reason, "user_id")
      yield* decided(decision, step.resource)
    }
    // Allowed, the write includes its action on the key's target: `ensureAllowed` grants it.
    const grant = yield* ensureAllowed(principal, action, target, { type: "API key", id: write.key.id })
    return new KeyGrant(keyRulesChecked, grant)
  })

/** Creating `key` (as it will be stored), acting as `user`: the grant its insert takes. */
export const ensureKeyCreation = (principal: Principal, key: KeyFacts, user: KeyUser | null) =>
  ensureKeyWrite(principal, { op: "create", key, user }, KeyCreationActions[key.type], keyTarget(factsOf(key)))

/** Giving `key` a new secret: the grant its rotation takes. */
export const ensureKeyRotation = (principal: Principal, key: KeyFacts, user: KeyUser | null) =>
  ensureKeyWrite(principal, { op: "rotate", key, user }, KeyRotationActions[key.type], keyTarget(factsOf(key)))

/** Revoking `key`: the grant its revocation takes. */
export const ensureKeyRevocation = (principal: Principal, key: KeyFacts, user: KeyUser | null) =>
  ensureKeyWrite(principal, { op: "revoke", key, user }, "api_keys.delete", Target.of(key))

/** Changing `key` into `changed`: the grant its update takes. */
export const ensureKeyUpdate = (principal: Principal, write: Omit<Extract<KeyWrite, { op: "update" }>, "op">) =>
  ensureKeyWrite(principal, { op: "update", ...write }, "api_keys.update", Target.of(write.key))

// ---------------------------------------------------------------------------------------------------------
// Trust policies: standing orders to issue workspace service keys to workloads

/** What a trust policy write decides on: where its credentials act, and what they may do. */
export interface TrustPolicyFacts {
  readonly id: string
  readonly organisationId: string
  readonly workspaceId: string
  readonly scopes: ReadonlyArray<Scope>
}

/**
 * May this principal write this trust policy? The action (admin keys of organisation owners and admins), and
 * no escalation: the credentials the policy issues get only scopes its writer holds (refused naming the others).
 */
export const ensureTrustPolicyWrite = <A extends "trust_policies.create" | "trust_policies.update">(
  principal: Principal,
  action: A,
  policy: TrustPolicyFacts
): Effect.Effect<AccessGrant<A>, Forbidden | NotFound> => {
  const resource: ResourceRef = { type: "trust policy", id: policy.id }
  return Effect.flatMap(
    ensureAllowed(principal, action, Target.workspace(policy.organisationId, policy.workspaceId), resource),
    (grant) => Effect.as(decided(grantable(principal, policy.scopes), resource), grant)
  )
}
