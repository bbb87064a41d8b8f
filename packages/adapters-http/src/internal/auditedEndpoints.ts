/**
 * What each mutating endpoint does, in the audit log's terms. The handlers say it for the calls they run;
 * this table says it for calls refused before a handler runs (no known key, a request that does not
 * decode), so those records read like the others. A test checks every mutating endpoint is listed.
 */
export interface AuditedEndpoint {
  readonly action: string
  readonly resourceType: string
}

const ENDPOINTS = {
  "workspaces.create": { action: "create", resourceType: "workspace" },
  "apiKeys.create": { action: "create", resourceType: "api_key" },
  "apiKeys.update": { action: "update", resourceType: "api_key" },
  "apiKeys.revoke": { action: "revoke", resourceType: "api_key" },
  "apiKeys.rotate": { action: "rotate", resourceType: "api_key" },
  "users.create": { action: "create", resourceType: "user" },
  "users.addMember": { action: "create", resourceType: "workspace_member" },
  "users.removeMember": { action: "delete", resourceType: "workspace_member" },
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
  // Served on its own route; only its refusals for a known key are recorded (auditRefusals.ts).
  "promptRendering.render": { action: "render", resourceType: "prompt" },
  "labels.create": { action: "create", resourceType: "label" },
  "labels.update": { action: "update", resourceType: "label" },
  "labels.delete": { action: "delete", resourceType: "label" },
  "mcp.createIntegration": { action: "create", resourceType: "mcp_integration" },
  "mcp.updateIntegration": { action: "update", resourceType: "mcp_integration" },
  "mcp.archiveIntegration": { action: "archive", resourceType: "mcp_integration" },
  "mcp.createServer": { action: "create", resourceType: "mcp_server" },
  "mcpLive.testServer": { action: "test", resourceType: "mcp_server" },
  "mcpLive.syncCapabilities": { action: "sync", resourceType: "mcp_integration" },
  "mcpLive.setCapabilities": { action: "update", resourceType: "mcp_integration" },
  "providers.createVirtualKey": { action: "create", resourceType: "virtual_key" },
  "providers.updateVirtualKey": { action: "update", resourceType: "virtual_key" },
  "providers.deleteVirtualKey": { action: "delete", resourceType: "virtual_key" },
  "providers.createConfig": { action: "create", resourceType: "config" },
  "providers.updateConfig": { action: "update", resourceType: "config" },
  "providers.deleteConfig": { action: "delete", resourceType: "config" }
} as const satisfies Readonly<Record<string, AuditedEndpoint>>

/** `group.endpoint` of an audited endpoint; handlers name their record by it. */
export type AuditedEndpointName = keyof typeof ENDPOINTS

export const AUDITED_ENDPOINTS: Readonly<Record<string, AuditedEndpoint>> = ENDPOINTS

/** Methods whose calls change something: the audited ones. */
export const MUTATING_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"])

const ACTION_OF_METHOD: Readonly<Record<string, string>> = { POST: "create", PUT: "update", PATCH: "update" }

/** The endpoint's entry; for one missing from the table, an action from its method and the group's name. */
export const auditedEndpoint = (group: string, endpoint: string, method: string): AuditedEndpoint =>
  AUDITED_ENDPOINTS[`${group}.${endpoint}`] ?? { action: ACTION_OF_METHOD[method] ?? "delete", resourceType: group }
