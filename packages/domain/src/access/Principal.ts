/**
 * The authenticated caller as the domain sees it: resolved from an API key by `ApiKeys.authenticate`
 * and handed to every handler by the HTTP security middleware.
 */
import { Context } from "effect"
import type { ApiKeyType, WorkloadIdentity } from "../credentials/ApiKey.ts"
import type { OrganisationRole, WorkspaceRole } from "./AccessModel.ts"
import type { Scope } from "./Scopes.ts"

/** The person behind a principal that a session cookie admitted (sessions/Sessions.ts). */
export interface SessionActor {
  readonly id: string
  readonly email: string
  /** The identity provider and its subject for a sign-in by SSO; null otherwise. */
  readonly identityProvider: string | null
  readonly subject: string | null
}

export interface Principal {
  /** The key the call presented; null for a person signed in (`session`). */
  readonly keyId: string | null
  /**
   * The key's kind; a session acts as the kind that fits its person's organisation role: an owner's or admin's
   * as an organisation (admin) key, a member's as a workspace user key in one of their workspaces.
   */
  readonly keyType: ApiKeyType
  readonly organisationId: string
  /** The key's workspace; null for an organisation-wide (admin) key. */
  readonly workspaceId: string | null
  /** The key's user; null for a service key without an owner. */
  readonly userId: string | null
  readonly organisationRole: OrganisationRole | null
  readonly workspaceRole: WorkspaceRole | null
  readonly scopes: ReadonlySet<Scope>
  /**
   * When the key stops working; null when it never expires. Nothing a key issues or changes outlives it
   * (`KeyPolicy.ts`).
   */
  readonly expiresAt: string | null
  /** The workload a credential issued by token exchange stands for; absent on every other key. */
  readonly workload?: WorkloadIdentity | undefined
  /** The session and person behind the call, for a person signed in; absent for a key. */
  readonly session?: SessionActor | undefined
}

/** The principal of the current request. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()(
  "@gateway-control/CurrentPrincipal"
) {}

/** What a stored key says about its holder. */
export interface KeyRecord {
  readonly id: string
  readonly type: ApiKeyType
  readonly organisation_id: string
  readonly workspace_id: string | null
  readonly user_id: string | null
  readonly scopes: ReadonlyArray<Scope>
  readonly expires_at: string | null
  readonly workload?: WorkloadIdentity | null | undefined
}

/**
 * The principal a key authenticates as, given its user's organisation role (null when it has no user) and
 * their role in the key's workspace (null when not a member). `undefined` when it does not authenticate: a
 * workspace/user key acts as its user, and a user who is no longer a member of its workspace may not act there.
 * `ApiKeys.authenticate` builds every principal with this, and the policy's generators build theirs with it too.
 */
export const principalOf = (
  key: KeyRecord,
  organisationRole: OrganisationRole | null,
  membership: WorkspaceRole | null
): Principal | undefined => {
  if (key.type === "workspace-user" && (key.workspace_id === null || key.user_id === null || membership === null)) {
    return undefined
  }
  const ownMembership = key.workspace_id !== null && key.user_id !== null ? membership : null
  // Organisation owners and admins count as managers of every workspace.
  const workspaceRole = organisationRole === "owner" || organisationRole === "admin" ? "manager" : ownMembership
  return {
    keyId: key.id,
    keyType: key.type,
    organisationId: key.organisation_id,
    workspaceId: key.workspace_id,
    userId: key.user_id,
    organisationRole: key.user_id === null ? null : organisationRole,
    workspaceRole,
    scopes: new Set(key.scopes),
    expiresAt: key.expires_at,
    ...(key.workload == null ? {} : { workload: key.workload })
  }
}
