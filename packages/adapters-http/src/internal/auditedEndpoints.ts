/**
 * What each mutating endpoint does, in the audit log's terms: its use case's entry in the domain's
 * `USE_CASES` (an endpoint and its use case share one name). The use cases say it for the calls they run;
 * this says it for calls refused before any use case ran (no known key, a request that does not decode), so
 * those records read like the others. A test checks every mutating endpoint has its use case.
 */
import { isUseCaseName, USE_CASES, type UseCaseName, type UseCaseRecord } from "@gateway-control/domain"

/** `group.endpoint` of an audited endpoint: the name of the use case it runs. */
export type AuditedEndpointName = UseCaseName

/** Methods whose calls change something: the audited ones. */
export const MUTATING_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"])

const ACTION_OF_METHOD: Readonly<Record<string, string>> = { POST: "create", PUT: "update", PATCH: "update" }

/**
 * Endpoints on a second path of a use case another endpoint already names: Portkey's paths of operations we
 * served first on our own (`POST /v1/admin/workspaces` and `POST /v1/workspaces` are one use case).
 */
const PATH_ALIASES: Readonly<Record<string, UseCaseName>> = {
  "workspaces.adminCreate": "workspaces.create",
  "users.removeWorkspaceUser": "users.removeMember",
  // Password sign-in is the `signIn` group's, which takes no key; its use case is the sessions'.
  "signIn.password": "sessions.signIn",
  "signIn.secondFactor": "sessions.signIn",
  // Accepting an invitation by its link is the `inviteLinks` group's, which takes no key.
  "inviteLinks.accept": "invites.accept",
  "mcpRegistry.setIntegrationWorkspaces": "mcpRegistry.updateIntegration",
  "mcpConnectivity.syncIntegration": "mcpConnectivity.syncCapabilities"
}

/** The use case an endpoint (`group.endpoint`) runs: its own name, or the one its path is an alias of. */
export const useCaseOfEndpoint = (name: string): string => PATH_ALIASES[name] ?? name

/** The endpoint's entry; for one missing from the table, an action from its method and the group's name. */
export const auditedEndpoint = (group: string, endpoint: string, method: string): UseCaseRecord => {
  const name = useCaseOfEndpoint(`${group}.${endpoint}`)
  return isUseCaseName(name)
    ? USE_CASES[name]
    : { action: ACTION_OF_METHOD[method] ?? "delete", resourceType: group }
}
