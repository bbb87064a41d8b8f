/**
 * The catalogue of scopes: the one place that names them. A key carries a set of scopes and every
 * action needs its scope on the key. Scopes do not imply each other.
 */
import { Schema } from "effect"

export const ScopeNames = [
  "organisation_service_api_keys.create",
  "workspace_service_api_keys.create",
  "workspace_user_api_keys.create",
  "organisation_service_api_keys.rotate",
  "workspace_service_api_keys.rotate",
  "workspace_user_api_keys.rotate",
  "api_keys.list",
  "api_keys.update",
  "api_keys.delete",
  "workspaces.create",
  "workspaces.read",
  "workspaces.list",
  "workspaces.update",
  "workspaces.delete",
  "organisation_users.create",
  "organisation_users.read",
  "organisation_users.list",
  "organisation_users.update",
  "organisation_users.delete",
  "workspace_users.create",
  "workspace_users.read",
  "workspace_users.list",
  "workspace_users.update",
  "workspace_users.delete",
  "prompts.create",
  "prompts.read",
  "prompts.list",
  "prompts.update",
  "prompts.delete",
  "prompts.publish",
  "prompts.render",
  "configs.create",
  "configs.read",
  "configs.list",
  "configs.update",
  "configs.delete",
  "virtual_keys.create",
  "virtual_keys.read",
  "virtual_keys.list",
  "virtual_keys.update",
  "virtual_keys.delete",
  "mcp_servers.create",
  "mcp_servers.read",
  "mcp_servers.list",
  "mcp_servers.test",
  "organisation_mcp_integrations.create",
  "organisation_mcp_integrations.read",
  "organisation_mcp_integrations.list",
  "workspace_mcp_integrations.create",
  "workspace_mcp_integrations.read",
  "workspace_mcp_integrations.list",
  "organisation_integrations.create",
  "organisation_integrations.read",
  "organisation_integrations.list",
  "organisation_integrations.update",
  "organisation_integrations.delete",
  "workspace_integrations.create",
  "workspace_integrations.read",
  "workspace_integrations.list",
  "workspace_integrations.update",
  "workspace_integrations.delete",
  "secret_references.create",
  "secret_references.read",
  "secret_references.list",
  "secret_references.update",
  "secret_references.delete",
  "completions.write",
  "logs.view",
  "logs.list",
  "logs.export",
  "audit_logs.list",
  "analytics.view",
  "feedback.create",
  "feedback.update"
] as const

export const Scope = Schema.Literals(ScopeNames)
export type Scope = typeof Scope.Type

const known: ReadonlySet<string> = new Set(ScopeNames)

export const isScope = (name: string): name is Scope => known.has(name)

/** The names in `names` that are not in the catalogue, in their given order. */
export const unknownScopes = (names: ReadonlyArray<string>): ReadonlyArray<string> =>
  names.filter((name) => !known.has(name))
