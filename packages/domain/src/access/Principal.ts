/**
 * The authenticated caller as the domain sees it: resolved from an API key by `ApiKeys.authenticate`
 * and handed to every handler by the HTTP security middleware.
 */
import { Context } from "effect"
import type { ApiKeyType } from "../credentials/ApiKey.ts"
import type { OrganisationRole, WorkspaceRole } from "./AccessModel.ts"
import type { Scope } from "./Scopes.ts"

export interface Principal {
  readonly keyId: string
  readonly keyType: ApiKeyType
  readonly organisationId: string
  /** The key's workspace; null for an organisation-wide (admin) key. */
  readonly workspaceId: string | null
  /** The key's user; null for a service key without an owner. */
  readonly userId: string | null
  readonly organisationRole: OrganisationRole | null
  readonly workspaceRole: WorkspaceRole | null
  readonly scopes: ReadonlySet<Scope>
}

/** The principal of the current request. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()(
  "@gateway-control/CurrentPrincipal"
) {}
