/**
 * Every administrative use case, in the audit log's terms: the action a record names and the type of resource
 * it changes. A use case's name is the one its HTTP endpoint carries (`group.endpoint`), so a record, a
 * domain method and an endpoint are found by one search. The audited use case (AuditedUseCase.ts) reads its
 * record's action here, and so does `AuditedUseCase.refused` for calls an edge refused before any use case ran.
 */
export interface UseCaseRecord {
  readonly action: string
  readonly resourceType: string
  /** The status a success answers with, when not the action's usual one (AuditOutcome.ts `successStatusOf`). */
  readonly successStatus?: number
}

const USE_CASE_TABLE = {
  "bootstrap.run": { action: "create", resourceType: "organisation" },
  "workspaces.create": { action: "create", resourceType: "workspace" },
  "workspaces.update": { action: "update", resourceType: "workspace" },
  "workspaces.delete": { action: "delete", resourceType: "workspace" },
  "apiKeys.create": { action: "create", resourceType: "api_key" },
  "apiKeys.update": { action: "update", resourceType: "api_key" },
  "apiKeys.revoke": { action: "revoke", resourceType: "api_key" },
  "apiKeys.rotate": { action: "rotate", resourceType: "api_key" },
  "users.create": { action: "create", resourceType: "user" },
  "users.addMember": { action: "create", resourceType: "workspace_member" },
  "users.removeMember": { action: "delete", resourceType: "workspace_member" },
  "users.update": { action: "update", resourceType: "user" },
  "users.delete": { action: "delete", resourceType: "user" },
  "users.addMembers": { action: "create", resourceType: "workspace_member" },
  "users.updateMember": { action: "update", resourceType: "workspace_member" },
  "prompts.createPartial": { action: "create", resourceType: "prompt_partial" },
  "prompts.updatePartial": { action: "update", resourceType: "prompt_partial" },
  "prompts.publishPartial": { action: "publish", resourceType: "prompt_partial" },
  "prompts.deletePartial": { action: "delete", resourceType: "prompt_partial" },
  "prompts.create": { action: "create", resourceType: "prompt" },
  "prompts.update": { action: "update", resourceType: "prompt" },
  "prompts.makeDefault": { action: "publish", resourceType: "prompt" },
  "prompts.setLabel": { action: "label", resourceType: "prompt" },
  "prompts.setVersionLabel": { action: "label", resourceType: "prompt" },
  "prompts.delete": { action: "delete", resourceType: "prompt" },
  // Not a change: only its refusals of a known key (revoked, expired) are recorded (adapters-http Admission.ts).
  "promptRendering.render": { action: "render", resourceType: "prompt" },
  // Not a change either (a model call): only refusals before it ran are recorded.
  "promptCompletions.complete": { action: "complete", resourceType: "prompt" },
  "promptCompletions.completeDraft": { action: "complete", resourceType: "prompt" },
  "collections.create": { action: "create", resourceType: "collection" },
  "collections.update": { action: "update", resourceType: "collection" },
  "collections.delete": { action: "delete", resourceType: "collection" },
  "labels.create": { action: "create", resourceType: "label" },
  "labels.update": { action: "update", resourceType: "label" },
  "labels.delete": { action: "delete", resourceType: "label" },
  "mcpRegistry.createIntegration": { action: "create", resourceType: "mcp_integration" },
  "mcpRegistry.updateIntegration": { action: "update", resourceType: "mcp_integration" },
  "mcpRegistry.archiveIntegration": { action: "archive", resourceType: "mcp_integration" },
  "mcpRegistry.createServer": { action: "create", resourceType: "mcp_server" },
  "mcpRegistry.updateServer": { action: "update", resourceType: "mcp_server" },
  "mcpRegistry.deleteServer": { action: "delete", resourceType: "mcp_server" },
  "mcpRegistry.updateServerUserAccess": { action: "update", resourceType: "mcp_server_user_access" },
  "mcpConnectivity.testIntegration": { action: "test", resourceType: "mcp_integration" },
  "mcpConnectivity.testServer": { action: "test", resourceType: "mcp_server" },
  "mcpConnectivity.syncCapabilities": { action: "sync", resourceType: "mcp_integration" },
  "mcpConnectivity.setCapabilities": { action: "update", resourceType: "mcp_integration" },
  "virtualKeys.create": { action: "create", resourceType: "virtual_key" },
  "virtualKeys.update": { action: "update", resourceType: "virtual_key" },
  "virtualKeys.delete": { action: "delete", resourceType: "virtual_key" },
  "configs.create": { action: "create", resourceType: "config" },
  "configs.update": { action: "update", resourceType: "config" },
  "configs.delete": { action: "delete", resourceType: "config" },
  "trustPolicies.create": { action: "create", resourceType: "trust_policy" },
  "trustPolicies.update": { action: "update", resourceType: "trust_policy" },
  "trustPolicies.delete": { action: "delete", resourceType: "trust_policy" },
  "integrations.create": { action: "create", resourceType: "integration" },
  "integrations.update": { action: "update", resourceType: "integration" },
  "integrations.delete": { action: "delete", resourceType: "integration" },
  // Sharing an integration with workspaces, and choosing its models: changes of their own kinds.
  "integrations.updateWorkspaces": { action: "share", resourceType: "integration" },
  "integrations.updateModels": { action: "update_models", resourceType: "integration" },
  "integrations.deleteModels": { action: "delete_models", resourceType: "integration" },
  // Not a change of the integration: its credential tried at the provider, and the health found kept.
  "integrations.test": { action: "test", resourceType: "integration" },
  // Fine-tuning jobs live at the provider: the gateway records who started or cancelled one, and the answer.
  // OpenAI's API answers a creation with 200, and so does ours.
  "fineTuning.createJob": { action: "create", resourceType: "fine_tuning_job", successStatus: 200 },
  "fineTuning.cancelJob": { action: "cancel", resourceType: "fine_tuning_job" },
  "providers.create": { action: "create", resourceType: "provider" },
  "providers.update": { action: "update", resourceType: "provider" },
  "providers.delete": { action: "delete", resourceType: "provider" },
  "secretReferences.create": { action: "create", resourceType: "secret_reference" },
  "secretReferences.update": { action: "update", resourceType: "secret_reference" },
  "secretReferences.delete": { action: "delete", resourceType: "secret_reference" },
  // Not a change: the gateway fetched a reference's secret for a record that calls out (secret-references/).
  "secretReferences.use": { action: "use", resourceType: "secret_reference" },
  "identityProviders.create": { action: "create", resourceType: "identity_provider" },
  "identityProviders.update": { action: "update", resourceType: "identity_provider" },
  "identityProviders.delete": { action: "delete", resourceType: "identity_provider" },
  // A person signing in with an identity provider: the user matched or created and the roles its map changed.
  "identityProviders.signIn": { action: "sign_in", resourceType: "user" },
  "scimTokens.create": { action: "create", resourceType: "scim_token" },
  "scimTokens.revoke": { action: "revoke", resourceType: "scim_token" },
  // SCIM 2.0 provisioning (/scim/v2), recorded under the SCIM token that called.
  "scim.createUser": { action: "create", resourceType: "user" },
  "scim.replaceUser": { action: "update", resourceType: "user" },
  "scim.patchUser": { action: "update", resourceType: "user" },
  "scim.deleteUser": { action: "delete", resourceType: "user" },
  "scim.createGroup": { action: "create", resourceType: "group" },
  "scim.replaceGroup": { action: "update", resourceType: "group" },
  "scim.patchGroup": { action: "update", resourceType: "group" },
  "scim.deleteGroup": { action: "delete", resourceType: "group" },
  // RFC 8693 token exchange: a workload's token for a short-lived credential (an API key), refusals included.
  "tokenExchange.exchange": { action: "exchange", resourceType: "api_key" },
  // People signing in (sessions/Sessions.ts): failed sign-ins are recorded as this use case's refusals.
  "sessions.signIn": { action: "sign_in", resourceType: "session" },
  "sessions.signOut": { action: "sign_out", resourceType: "session" },
  "sessions.signOutEverywhere": { action: "sign_out", resourceType: "session" },
  "sessions.revoke": { action: "revoke", resourceType: "session" },
  "sessions.setPassword": { action: "update", resourceType: "local_account" },
  // Local accounts (sessions/LocalAccounts.ts): an organisation's sign-in settings and a person's second factor.
  "signInSettings.update": { action: "update", resourceType: "sign_in_settings" },
  "secondFactor.enrol": { action: "create", resourceType: "second_factor" },
  "secondFactor.confirm": { action: "activate", resourceType: "second_factor" },
  "secondFactor.disable": { action: "delete", resourceType: "second_factor" },
  // Invitations (invites/Invites.ts): accepting one makes its user; a link nobody can use is recorded as refused.
  "invites.create": { action: "create", resourceType: "invite" },
  "invites.resend": { action: "resend", resourceType: "invite" },
  "invites.revoke": { action: "revoke", resourceType: "invite" },
  "invites.accept": { action: "accept", resourceType: "invite" },
  "invites.ownerLink": { action: "create", resourceType: "invite" }
} as const satisfies Readonly<Record<string, UseCaseRecord>>

/** The name of an audited use case. */
export type UseCaseName = keyof typeof USE_CASE_TABLE

export const USE_CASES: Readonly<Record<UseCaseName, UseCaseRecord>> = USE_CASE_TABLE

export const isUseCaseName = (name: string): name is UseCaseName => Object.hasOwn(USE_CASE_TABLE, name)
