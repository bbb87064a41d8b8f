/**
 * Access control: one pure, total decision function, `authorize`, behind every access decision of the
 * services. It encodes the specification's role and operation tables; no service decides access by itself,
 * and only this module and `KeyPolicy.ts` turn a decision into `Forbidden` or an access-hidden `NotFound`
 * (test/PolicyBoundary.test.ts enforces it).
 */
import { Effect, Option } from "effect"
import type { ApiKeyType } from "../credentials/ApiKey.ts"
import { Forbidden, NotFound } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
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
  /** Needs an organisation owner: the key's user must own the organisation (no escalation to owner). */
  readonly owner?: boolean
}

/** The verbs of a resource that is created, read, listed, updated and deleted. */
const CRUD = ["create", "read", "list", "update", "delete"] as const

/**
 * One action per verb on `resource`, each needing the scope of the same verb under `scopes` (a resource's own, or
 * the one it is governed by, as providers are by virtual keys' scopes) and the same reach; in the verbs' order.
 */
const verbs = <const R extends string, const S extends string, const Re extends Reach, const V extends string>(
  resource: R,
  scopes: S,
  reach: Re,
  names: ReadonlyArray<V>
) =>
  Object.fromEntries(names.map((verb) => [`${resource}.${verb}`, { scope: `${scopes}.${verb}`, reach }])) as {
    readonly [K in V as `${R}.${K}`]: { readonly scope: `${S}.${K}`; readonly reach: Re }
  }

/** Every action of the service, with the scope it needs and who may perform it. */
export const Actions = {
  "scopes.list": { scope: null, reach: "any" },
  "workspaces.create": { scope: "workspaces.create", reach: "admin" },
  "workspaces.update": { scope: "workspaces.update", reach: "admin" },
  "workspaces.read": { scope: "workspaces.read", reach: "any" },
  "workspaces.list": { scope: "workspaces.list", reach: "any" },
  "workspaces.delete": { scope: "workspaces.delete", reach: "admin" },
  "users.create": { scope: "organisation_users.create", reach: "admin" },
  /** Only an owner makes owners. */
  "users.create.owner": { scope: "organisation_users.create", reach: "admin", owner: true },
  "users.read": { scope: "organisation_users.read", reach: "admin" },
  "users.list": { scope: "organisation_users.list", reach: "admin" },
  "users.update": { scope: "organisation_users.update", reach: "admin" },
  /** Making an owner, or changing an owner's role: an owner's, as creating one is. */
  "users.update.owner": { scope: "organisation_users.update", reach: "admin", owner: true },
  "users.delete": { scope: "organisation_users.delete", reach: "admin" },
  /** Removing an owner: an owner's. */
  "users.delete.owner": { scope: "organisation_users.delete", reach: "admin", owner: true },
  "members.create": { scope: "workspace_users.create", reach: "admin" },
  "members.read": { scope: "workspace_users.read", reach: "any" },
  "members.update": { scope: "workspace_users.update", reach: "admin" },
  "members.delete": { scope: "workspace_users.delete", reach: "admin" },
  "members.list": { scope: "workspace_users.list", reach: "any" },
  "api_keys.create.organisation_service": { scope: "organisation_service_api_keys.create", reach: "admin" },
  "api_keys.create.workspace_service": { scope: "workspace_service_api_keys.create", reach: "any", manager: true },
  "api_keys.create.workspace_user": { scope: "workspace_user_api_keys.create", reach: "any", manager: true },
  "api_keys.list": { scope: "api_keys.list", reach: "any" },
  "api_keys.read": { scope: "api_keys.list", reach: "any" },
  "api_keys.update": { scope: "api_keys.update", reach: "any", manager: true },
  /** Rotating a key issues a secret with its powers: as creating such a key, with the kind's rotate scope. */
  "api_keys.rotate.organisation_service": { scope: "organisation_service_api_keys.rotate", reach: "admin" },
  "api_keys.rotate.workspace_service": { scope: "workspace_service_api_keys.rotate", reach: "any", manager: true },
  "api_keys.rotate.workspace_user": { scope: "workspace_user_api_keys.rotate", reach: "any", manager: true },
  "api_keys.delete": { scope: "api_keys.delete", reach: "any", manager: true },
  "audit_logs.list": { scope: "audit_logs.list", reach: "admin" },
  /**
   * A trust policy is a standing order to issue workspace service keys to workloads: writing one takes the
   * scope of creating such keys, reading one the scope of listing keys, deleting one that of revoking them;
   * organisation owners and admins only (trust-policies/TrustPolicies.ts).
   */
  "trust_policies.create": { scope: "workspace_service_api_keys.create", reach: "admin" },
  "trust_policies.read": { scope: "api_keys.list", reach: "admin" },
  "trust_policies.list": { scope: "api_keys.list", reach: "admin" },
  "trust_policies.update": { scope: "workspace_service_api_keys.create", reach: "admin" },
  "trust_policies.delete": { scope: "api_keys.delete", reach: "admin" },
  /** Secret references are the organisation's: owners' and admins' admin keys (secret-references/). */
  ...verbs("secret_references", "secret_references", "admin", CRUD),
  /**
   * An identity provider lets people sign in and be given roles by its map: organisation owners and admins
   * only, with the user scopes; a map that makes owners is an owner's (identity-providers/IdentityProviders.ts).
   */
  "identity_providers.create": { scope: "organisation_users.create", reach: "admin" },
  "identity_providers.create.owner": { scope: "organisation_users.create", reach: "admin", owner: true },
  "identity_providers.read": { scope: "organisation_users.read", reach: "admin" },
  "identity_providers.list": { scope: "organisation_users.list", reach: "admin" },
  "identity_providers.update": { scope: "organisation_users.update", reach: "admin" },
  "identity_providers.update.owner": { scope: "organisation_users.update", reach: "admin", owner: true },
  "identity_providers.delete": { scope: "organisation_users.delete", reach: "admin" },
  /**
   * An organisation's sign-in settings (password sign-in on or off, a second factor required): owners and
   * admins, with the user scopes (sessions/LocalAccounts.ts).
   */
  "sign_in_settings.read": { scope: "organisation_users.read", reach: "admin" },
  "sign_in_settings.update": { scope: "organisation_users.update", reach: "admin" },
  /**
   * A SCIM token lets an identity provider create, change and remove the organisation's users and their
   * memberships: creating one takes the scope of creating users, reading one that of listing them, revoking one
   * that of removing them; organisation owners and admins only (scim-tokens/ScimTokens.ts).
   */
  "scim_tokens.create": { scope: "organisation_users.create", reach: "admin" },
  "scim_tokens.read": { scope: "organisation_users.list", reach: "admin" },
  "scim_tokens.list": { scope: "organisation_users.list", reach: "admin" },
  "scim_tokens.revoke": { scope: "organisation_users.delete", reach: "admin" },
  ...verbs("prompts", "prompts", "any", [...CRUD, "publish", "render"]),
  /** Labels are prompts' (Label.ts): their scopes. Organisation labels, open to every workspace, are admin keys' to change. */
  "labels.create.organisation": { scope: "prompts.create", reach: "admin" },
  "labels.create.workspace": { scope: "prompts.create", reach: "any" },
  "labels.read": { scope: "prompts.read", reach: "any" },
  "labels.list": { scope: "prompts.list", reach: "any" },
  "labels.update.organisation": { scope: "prompts.update", reach: "admin" },
  "labels.update.workspace": { scope: "prompts.update", reach: "any" },
  "labels.delete.organisation": { scope: "prompts.delete", reach: "admin" },
  "labels.delete.workspace": { scope: "prompts.delete", reach: "any" },
  ...verbs("configs", "configs", "any", CRUD),
  ...verbs("virtual_keys", "virtual_keys", "any", CRUD),
  /**
   * AI-provider integrations (integrations/): an organisation-level one is owners' and admins' admin keys', a
   * workspace's own also its keys' (a scope per key kind, as MCP integrations have).
   */
  "integrations.create.organisation": { scope: "organisation_integrations.create", reach: "admin" },
  "integrations.create.workspace": {
    scope: { admin: "organisation_integrations.create", workspace: "workspace_integrations.create" },
    reach: "any"
  },
  "integrations.update.organisation": { scope: "organisation_integrations.update", reach: "admin" },
  "integrations.update.workspace": {
    scope: { admin: "organisation_integrations.update", workspace: "workspace_integrations.update" },
    reach: "any"
  },
  "integrations.delete.organisation": { scope: "organisation_integrations.delete", reach: "admin" },
  "integrations.delete.workspace": {
    scope: { admin: "organisation_integrations.delete", workspace: "workspace_integrations.delete" },
    reach: "any"
  },
  "integrations.read": {
    scope: { admin: "organisation_integrations.read", workspace: "workspace_integrations.read" },
    reach: "any"
  },
  "integrations.list": {
    scope: { admin: "organisation_integrations.list", workspace: "workspace_integrations.list" },
    reach: "any"
  },
  /** Providers replace virtual keys: a workspace's handles on integrations, under the virtual keys' scopes. */
  ...verbs("providers", "virtual_keys", "any", CRUD),
  "mcp_integrations.create.organisation": { scope: "organisation_mcp_integrations.create", reach: "admin" },
  "mcp_integrations.create.workspace": { scope: "workspace_mcp_integrations.create", reach: "any" },
  /** Updating or archiving an organisation-level integration: as creating one, owners and admins only. */
  "mcp_integrations.update.organisation": { scope: "organisation_mcp_integrations.create", reach: "admin" },
  "mcp_integrations.update.workspace": {
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
  ...verbs("mcp_servers", "mcp_servers", "any", ["create", "read", "list"]),
  /** Renaming or deleting a server: as creating one (no scope of its own, so existing keys keep their reach). */
  "mcp_servers.update": { scope: "mcp_servers.create", reach: "any" },
  "mcp_servers.delete": { scope: "mcp_servers.create", reach: "any" },
  /** Deciding which of a workspace's people may use a server (Portkey's user access): its managers'. */
  "mcp_servers.user_access.update": { scope: "mcp_servers.create", reach: "any", manager: true },
  /** Connecting to a server to test it: initialize and ping. */
  "mcp_servers.test": { scope: "mcp_servers.test", reach: "any" },
  "completions.write": { scope: "completions.write", reach: "workspace" },
  ...verbs("logs", "logs", "any", ["view", "list", "export"]),
  "analytics.view": { scope: "analytics.view", reach: "any" },
  "feedback.create": { scope: "feedback.create", reach: "workspace" },
  "feedback.update": { scope: "feedback.update", reach: "workspace" }
} as const satisfies Record<string, ActionRule>

export type Action = keyof typeof Actions

export const ActionNames = Object.keys(Actions) as ReadonlyArray<Action>

/** The workspaces an organisation-level resource is open to. */
export type OpenTo = "every-workspace" | ReadonlyArray<string>

/**
 * What an action is performed on, always inside one organisation:
 * - a workspace-level resource (or a workspace's collection), reachable by admin keys and that workspace's keys;
 * - an organisation-level resource, reachable by admin keys and by the keys of the workspaces it is open to.
 *   The organisation itself is open to every workspace: its keys see it, and are refused (403) what they may
 *   not do there; an admin API key, or the organisation's whole integration catalogue, is open to none.
 */
export type Target =
  | { readonly level: "workspace"; readonly organisationId: string; readonly workspaceId: string }
  | { readonly level: "organisation"; readonly organisationId: string; readonly openTo: OpenTo }

export const Target = {
  workspace: (organisationId: string, workspaceId: string): Target => ({
    level: "workspace",
    organisationId,
    workspaceId
  }),
  /** The organisation itself, or one of its organisation-wide collections that every key of it may address. */
  organisation: (organisationId: string): Target => ({
    level: "organisation",
    organisationId,
    openTo: "every-workspace"
  }),
  /** Where the key itself stands: its workspace, or its organisation for an admin key. */
  own: (principal: Principal): Target =>
    principal.workspaceId === null
      ? { level: "organisation", organisationId: principal.organisationId, openTo: "every-workspace" }
      : { level: "workspace", organisationId: principal.organisationId, workspaceId: principal.workspaceId },
  /** An organisation-level resource open to some workspaces (none: admin keys only). */
  shared: (organisationId: string, openTo: OpenTo): Target => ({ level: "organisation", organisationId, openTo }),
  /** A resource that lives in a workspace when `workspaceId` is set, at organisation level (admin keys only) when not. */
  of: (resource: { readonly organisation_id: string; readonly workspace_id: string | null }): Target =>
    resource.workspace_id === null
      ? { level: "organisation", organisationId: resource.organisation_id, openTo: [] }
      : { level: "workspace", organisationId: resource.organisation_id, workspaceId: resource.workspace_id }
}

export type Decision =
  | { readonly _tag: "Allowed" }
  | { readonly _tag: "Denied"; readonly reason: string }
  /** The caller cannot see the target (another organisation, or a workspace it does not reach): not found. */
  | { readonly _tag: "Hidden" }

const allowed: Decision = { _tag: "Allowed" }
const hidden: Decision = { _tag: "Hidden" }
const denied = (reason: string): Decision => ({ _tag: "Denied", reason })

export const isAdminKey = (principal: Principal): boolean => principal.keyType === "organisation-service"

/** Does the target lie within what the key can see? Another organisation, or a workspace it does not reach, does not. */
export const canSee = (principal: Principal, target: Target): boolean => {
  if (principal.organisationId !== target.organisationId) return false
  if (isAdminKey(principal)) return true
  if (target.level === "workspace") return target.workspaceId === principal.workspaceId
  return target.openTo === "every-workspace" ||
    (principal.workspaceId !== null && target.openTo.includes(principal.workspaceId))
}

/**
 * May `workspace` use the resource at `target` now: a workspace-level resource if it is the workspace's own, an
 * organisation-level one if it is open to the workspace. Asked, whoever the caller, where a workspace's own
 * record reaches a shared resource (an MCP server its integration): closing the resource to the workspace closes
 * every path through the workspace's records, an admin key's calls included.
 */
export const openToWorkspace = (
  target: Target,
  workspace: { readonly organisation_id: string; readonly workspace_id: string }
): boolean =>
  target.organisationId === workspace.organisation_id &&
  (target.level === "workspace"
    ? target.workspaceId === workspace.workspace_id
    : target.openTo === "every-workspace" || target.openTo.includes(workspace.workspace_id))

/** `openToWorkspace` as an effect: `Forbidden`, naming the record and its workspace, when the target is closed to it. */
export const ensureOpenToWorkspace = (
  target: Target,
  record: { readonly organisation_id: string; readonly workspace_id: string },
  resource: ResourceRef,
  what: string
): Effect.Effect<void, Forbidden> =>
  openToWorkspace(target, record)
    ? Effect.void
    : Effect.fail(
      new Forbidden({
        message: `${what} of ${resource.type} '${resource.id}' is not open to its workspace '${record.workspace_id}'.`
      })
    )

/**
 * May the person a key acts as use an MCP server, by the server's user access (mcp/McpUserAccess.ts): their own
 * override, else the server's default. It binds keys that act as a person in the workspace (`workspace-user`);
 * service keys act as nobody, and admin keys manage access rather than being subject to it.
 */
export const personMayUse = (
  principal: Principal,
  access: { readonly defaultAllows: boolean; readonly overrideFor: (userId: string) => boolean | undefined }
): boolean => !boundByUserAccess(principal) || (access.overrideFor(principal.userId!) ?? access.defaultAllows)

/** Does the key act as a person in its workspace, and so is bound by servers' user access (`personMayUse`)? */
export const boundByUserAccess = (principal: Principal): boolean =>
  principal.keyType === "workspace-user" && principal.userId !== null

/** `personMayUse` as an effect: `Forbidden`, naming the server, when the key's person may not use it. */
export const ensurePersonMayUse = (
  principal: Principal,
  access: Parameters<typeof personMayUse>[1],
  resource: ResourceRef
): Effect.Effect<void, Forbidden> =>
  personMayUse(principal, access)
    ? Effect.void
    : Effect.fail(
      new Forbidden({
        message: `This API key's user '${principal.userId}' may not use ${resource.type} '${resource.id}' ` +
          "(the server's user access denies them; a workspace manager can change it)."
      })
    )

/**
 * The scopes any one of which lets this principal perform the action on the target; empty when none is needed.
 * Actions with a scope per key kind take the kind's. An admin key may also use the workspace kind's scope on
 * anything a workspace key could reach with it (a workspace-level target, or an organisation-level one open to
 * some workspace): it could create such a workspace key, so refusing it would protect nothing.
 */
export const acceptedScopes = (principal: Principal, action: Action, target: Target): ReadonlyArray<Scope> => {
  const scope: ActionRule["scope"] = Actions[action].scope
  if (scope === null) return []
  if (typeof scope === "string") return [scope]
  if (!isAdminKey(principal)) return [scope.workspace]
  const reachableByWorkspaceKeys = target.level === "workspace" || target.openTo === "every-workspace" ||
    target.openTo.length > 0
  return reachableByWorkspaceKeys ? [scope.admin, scope.workspace] : [scope.admin]
}

export const authorize = (principal: Principal, action: Action, target: Target): Decision => {
  if (!canSee(principal, target)) return hidden
  const rule: ActionRule = Actions[action]
  const scopes = acceptedScopes(principal, action, target)
  if (scopes.length > 0 && !scopes.some((scope) => principal.scopes.has(scope))) {
    return denied(`This API key lacks the scope '${scopes.join("' or '")}', which ${action} needs.`)
  }
  if (isAdminKey(principal)) {
    if (rule.reach === "workspace") {
      return denied(`${action} needs a workspace key; admin keys cannot perform it.`)
    }
    if ((rule.reach === "admin" || rule.manager === true) && principal.organisationRole === "member") {
      return denied(`${action} needs an organisation owner or admin; this key's user is a member.`)
    }
    if (rule.owner === true && principal.organisationRole !== "owner") {
      return denied(`${action} needs an organisation owner.`)
    }
    return allowed
  }
  if (rule.reach === "admin") {
    return denied(`${action} needs an admin (organisation) key; workspace keys cannot perform it.`)
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

/**
 * The actions `principal` may perform where it stands (its workspace, or its organisation for an admin key), by
 * `authorize` itself: what a client such as the console offers, so that it hides what the policy would refuse.
 * Not protection: every call is still authorized on its own target.
 */
export const allowedActions = (principal: Principal): ReadonlyArray<Action> =>
  ActionNames.filter((action) => authorize(principal, action, Target.own(principal))._tag === "Allowed")

/** Known to this module only: nothing else can construct an `AccessGrant`. */
const issuedByPolicy: unique symbol = Symbol("issuedByPolicy")

/**
 * Proof that `authorize` allowed an action: only `ensureAllowed` makes one, and the services' store writes take
 * one (`grantedWrites`, GrantedWrites.ts), so a write cannot be reached by a path that skipped the policy (the
 * shape of the Effect examples' `policyUse`).
 */
export class AccessGrant<out A extends Action> {
  readonly action: A
  readonly principal: Principal
  readonly target: Target
  constructor(_issuer: typeof issuedByPolicy, action: A, principal: Principal, target: Target) {
    this.action = action
    this.principal = principal
    this.target = target
  }
}

/** The resource named in a hidden target's `NotFound`. */
export interface ResourceRef {
  readonly type: string
  readonly id: string
}

/** A decision as an effect: Denied becomes `Forbidden`, Hidden becomes `NotFound` for the named resource. */
export const decided = (decision: Decision, resource: ResourceRef): Effect.Effect<void, Forbidden | NotFound> => {
  switch (decision._tag) {
    case "Allowed":
      return Effect.void
    case "Denied":
      return Effect.fail(new Forbidden({ message: decision.reason }))
    case "Hidden":
      return Effect.fail(new NotFound({ resource: resource.type, id: resource.id }))
  }
}

/** `authorize` as an effect, which on success hands back the proof that writes require. */
export const ensureAllowed = <A extends Action>(
  principal: Principal,
  action: A,
  target: Target,
  resource: ResourceRef
): Effect.Effect<AccessGrant<A>, Forbidden | NotFound> =>
  Effect.as(
    decided(authorize(principal, action, target), resource),
    new AccessGrant(issuedByPolicy, action, principal, target)
  )

/** What each key kind is shown. A presentation rule, not protection: see README "Access model". */
export const KeyKinds: Record<ApiKeyType, { readonly seesIntegrationDetails: boolean }> = {
  "organisation-service": { seesIntegrationDetails: true },
  "workspace-service": { seesIntegrationDetails: true },
  "workspace-user": { seesIntegrationDetails: false }
}

/** `mcp_integration_details` on a server: for service keys only. */
export const seesIntegrationDetails = (principal: Principal): boolean =>
  KeyKinds[principal.keyType].seesIntegrationDetails

/**
 * The one rule for where a slug names a resource: the named workspace, else the key's own; null for an admin key
 * naming none (it addresses resources by id then). A workspace the key cannot reach is looked in all the same:
 * what is found there, `authorize` hides (404), as it hides another organisation's.
 */
export const slugScope = (principal: Principal, workspaceId: string | undefined): string | null =>
  workspaceId ?? principal.workspaceId

/** Where the workspace a request names is looked up: the store's answer, with its organisation. */
export interface WorkspaceLookup {
  readonly get: (
    id: string
  ) => Effect.Effect<Option.Option<{ readonly id: string; readonly organisation_id: string }>, StoreError>
}

/**
 * The one rule for what a list covers: the named workspace, else the key's own, else (an admin key naming
 * none) the whole organisation. Answers the workspace id to list, null for the whole organisation. A named
 * workspace is looked up, and the target is where it really is: one of another organisation, or none at all,
 * is a workspace the key cannot reach, so not found (never an empty list).
 */
export const ensureListScope = (
  workspaces: WorkspaceLookup,
  principal: Principal,
  workspaceId: string | undefined,
  action: Action
): Effect.Effect<string | null, Forbidden | NotFound | StoreError> =>
  Effect.gen(function*() {
    const scope = slugScope(principal, workspaceId)
    const resource: ResourceRef = { type: "workspace", id: scope ?? principal.organisationId }
    let target: Target
    if (scope === null) target = Target.organisation(principal.organisationId)
    else if (workspaceId === undefined) target = Target.own(principal)
    else {
      const named = yield* workspaces.get(scope)
      if (Option.isNone(named)) return yield* new NotFound({ resource: "workspace", id: scope })
      target = Target.workspace(named.value.organisation_id, named.value.id)
    }
    yield* decided(authorize(principal, action, target), resource)
    return scope
  })
