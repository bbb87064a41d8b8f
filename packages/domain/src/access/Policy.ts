/**
 * Access control: one pure, total decision function, `authorize`, used by every handler. It encodes the
 * specification's role and operation tables; no handler decides access by itself.
 */
import { Effect } from "effect"
import type { ApiKeyType } from "../credentials/ApiKey.ts"
import { Forbidden, NotFound } from "../shared/Errors.ts"
import type { OrganisationRole, WorkspaceRole } from "./AccessModel.ts"
import type { Principal } from "./Principal.ts"
import type { Scope } from "./Scopes.ts"

/**
 * Who may perform an action:
 * - `admin`: admin (organisation) keys only, whose user (if any) is an organisation owner or admin.
 * - `any`: admin keys in any workspace of their organisation, workspace keys in their own workspace.
 * - `workspace`: workspace keys only, in their own workspace.
 */
export type Reach = "admin" | "any" | "workspace"

export interface ActionRule {
  /** The scope the key needs: one for every key, or one per key kind; null when any key may. */
  readonly scope: Scope | { readonly admin: Scope; readonly workspace: Scope } | null
  readonly reach: Reach
  /** Needs a manager: a workspace-user key's user must manage the workspace, an admin key's must not be a member. */
  readonly manager?: boolean
}

/** Every action of the service, with the scope it needs and who may perform it. */
export const Actions = {
  "scopes.list": { scope: null, reach: "any" },
  "workspaces.create": { scope: "workspaces.create", reach: "admin" },
  "workspaces.update": { scope: "workspaces.update", reach: "admin" },
  "workspaces.read": { scope: "workspaces.read", reach: "any" },
  "workspaces.list": { scope: "workspaces.list", reach: "any" },
  "users.create": { scope: "organisation_users.create", reach: "admin" },
  "users.read": { scope: "organisation_users.read", reach: "admin" },
  "users.list": { scope: "organisation_users.list", reach: "admin" },
  "members.create": { scope: "workspace_users.create", reach: "admin" },
  "members.delete": { scope: "workspace_users.delete", reach: "admin" },
  "members.list": { scope: "workspace_users.list", reach: "any" },
  "api_keys.create.organisation_service": { scope: "organisation_service_api_keys.create", reach: "admin" },
  "api_keys.create.workspace_service": { scope: "workspace_service_api_keys.create", reach: "any", manager: true },
  "api_keys.create.workspace_user": { scope: "workspace_user_api_keys.create", reach: "any", manager: true },
  "api_keys.list": { scope: "api_keys.list", reach: "any" },
  "api_keys.read": { scope: "api_keys.list", reach: "any" },
  "api_keys.delete": { scope: "api_keys.delete", reach: "any", manager: true },
  "audit_logs.list": { scope: "audit_logs.list", reach: "admin" },
  "prompts.create": { scope: "prompts.create", reach: "any" },
  "prompts.read": { scope: "prompts.read", reach: "any" },
  "prompts.list": { scope: "prompts.list", reach: "any" },
  "prompts.update": { scope: "prompts.update", reach: "any" },
  "prompts.delete": { scope: "prompts.delete", reach: "any" },
  "prompts.publish": { scope: "prompts.publish", reach: "any" },
  "prompts.render": { scope: "prompts.render", reach: "any" },
  "configs.create": { scope: "configs.create", reach: "any" },
  "configs.read": { scope: "configs.read", reach: "any" },
  "configs.list": { scope: "configs.list", reach: "any" },
  "configs.update": { scope: "configs.update", reach: "any" },
  "configs.delete": { scope: "configs.delete", reach: "any" },
  "virtual_keys.create": { scope: "virtual_keys.create", reach: "any" },
  "virtual_keys.read": { scope: "virtual_keys.read", reach: "any" },
  "virtual_keys.list": { scope: "virtual_keys.list", reach: "any" },
  "virtual_keys.update": { scope: "virtual_keys.update", reach: "any" },
  "virtual_keys.delete": { scope: "virtual_keys.delete", reach: "any" },
  "mcp_integrations.create.organisation": { scope: "organisation_mcp_integrations.create", reach: "admin" },
  "mcp_integrations.create.workspace": { scope: "workspace_mcp_integrations.create", reach: "any" },
  "mcp_integrations.update": {
    scope: { admin: "organisation_mcp_integrations.create", workspace: "workspace_mcp_integrations.create" },
    reach: "any"
  },
  "mcp_integrations.read": {
    scope: { admin: "organisation_mcp_integrations.read", workspace: "workspace_mcp_integrations.read" },
    reach: "any"
  },
  "mcp_integrations.list": {
    scope: { admin: "organisation_mcp_integrations.list", workspace: "workspace_mcp_integrations.list" },
    reach: "any"
  },
  "mcp_servers.create": { scope: "mcp_servers.create", reach: "any" },
  "mcp_servers.read": { scope: "mcp_servers.read", reach: "any" },
  "mcp_servers.list": { scope: "mcp_servers.list", reach: "any" },
  "completions.write": { scope: "completions.write", reach: "workspace" },
  "logs.view": { scope: "logs.view", reach: "any" },
  "logs.list": { scope: "logs.list", reach: "any" },
  "logs.export": { scope: "logs.export", reach: "any" },
  "analytics.view": { scope: "analytics.view", reach: "any" },
  "feedback.create": { scope: "feedback.create", reach: "workspace" },
  "feedback.update": { scope: "feedback.update", reach: "workspace" }
} as const satisfies Record<string, ActionRule>

export type Action = keyof typeof Actions

export const ActionNames = Object.keys(Actions) as ReadonlyArray<Action>

/** What an action is performed on: always inside one organisation, optionally inside one workspace. */
export interface Target {
  readonly organisationId: string
  /** null for organisation-level targets (the organisation itself, organisation-wide lists). */
  readonly workspaceId: string | null
}

export type Decision =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Denied"; readonly reason: string }
  /** The target belongs to another organisation: answered as if it did not exist. */
  | { readonly _tag: "Hidden" }

const allowed: Decision = { _tag: "Allowed" }
const denied = (reason: string): Decision => ({ _tag: "Denied", reason })

export const isAdminKey = (principal: Principal): boolean => principal.keyType === "organisation-service"

/** The scope this principal needs for the action, or null when none is needed. */
export const requiredScope = (principal: Principal, action: Action): Scope | null => {
  const scope: ActionRule["scope"] = Actions[action].scope
  if (scope === null || typeof scope === "string") return scope
  return isAdminKey(principal) ? scope.admin : scope.workspace
}

export const authorize = (principal: Principal, action: Action, target: Target): Decision => {
  if (principal.organisationId !== target.organisationId) return { _tag: "Hidden" }
  const rule: ActionRule = Actions[action]
  const scope = requiredScope(principal, action)
  if (scope !== null && !principal.scopes.has(scope)) {
    return denied(`This API key lacks the scope '${scope}', which ${action} needs.`)
  }
  if (isAdminKey(principal)) {
    if (rule.reach === "workspace") {
      return denied(`${action} needs a workspace key; admin keys cannot perform it.`)
    }
    if ((rule.reach === "admin" || rule.manager === true) && principal.organisationRole === "member") {
      return denied(`${action} needs an organisation owner or admin; this key's user is a member.`)
    }
    return allowed
  }
  if (rule.reach === "admin") {
    return denied(`${action} needs an admin (organisation) key; workspace keys cannot perform it.`)
  }
  if (target.workspaceId !== null && target.workspaceId !== principal.workspaceId) {
    return denied(`This API key belongs to another workspace than '${target.workspaceId}'.`)
  }
  if (principal.keyType === "workspace-user") {
    if (principal.workspaceRole === null) {
      return denied("This API key's user is no longer a member of its workspace.")
    }
    if (rule.manager === true && principal.workspaceRole !== "manager") {
      return denied(`${action} needs a workspace manager; this key's user is a workspace member.`)
    }
  }
  return allowed
}

/** `authorize` as an effect: Denied becomes `Forbidden`, Hidden becomes `NotFound` for the named resource. */
export const ensureAllowed = (
  principal: Principal,
  action: Action,
  target: Target,
  resource: { readonly type: string; readonly id: string }
): Effect.Effect<void, Forbidden | NotFound> => {
  const decision = authorize(principal, action, target)
  switch (decision._tag) {
    case "Allowed":
      return Effect.void
    case "Denied":
      return Effect.fail(new Forbidden({ message: decision.reason }))
    case "Hidden":
      return Effect.fail(new NotFound({ resource: resource.type, id: resource.id }))
  }
}

export interface KeyCreation {
  readonly type: ApiKeyType
  readonly organisationId: string
  /** The new key's workspace; null for an admin key. */
  readonly workspaceId: string | null
  readonly scopes: ReadonlyArray<Scope>
}

export const keyCreationAction = (type: ApiKeyType): Action =>
  type === "organisation-service"
    ? "api_keys.create.organisation_service"
    : type === "workspace-service"
    ? "api_keys.create.workspace_service"
    : "api_keys.create.workspace_user"

/**
 * May this principal create this key? On top of `authorize`: no escalation. The new key's scopes are a
 * subset of the creator's, and its reach (organisation or one workspace) is no wider than the creator's.
 */
export const authorizeKeyCreation = (principal: Principal, request: KeyCreation): Decision => {
  const wantsOrganisation = request.type === "organisation-service"
  if (wantsOrganisation !== (request.workspaceId === null)) {
    return denied(wantsOrganisation ? "Admin keys belong to no workspace." : "Workspace keys need a workspace.")
  }
  const decision = authorize(principal, keyCreationAction(request.type), {
    organisationId: request.organisationId,
    workspaceId: request.workspaceId
  })
  if (decision._tag !== "Allowed") return decision
  const missing = request.scopes.filter((scope) => !principal.scopes.has(scope))
  if (missing.length > 0) {
    return denied(`A key cannot grant scopes it lacks: ${missing.join(", ")}.`)
  }
  return allowed
}

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
