/**
 * What a caller gives to create or change an MCP integration, or to create a server: one schema per use case,
 * derived from the entities (Mcp.ts), in the API's casing. The HTTP API takes them as its payloads and the
 * use cases (McpIntegrations.ts, McpServers.ts) as their inputs.
 */
import { Schema, Struct } from "effect"
import { unsupportedFields } from "../shared/Unsupported.ts"
import { McpIntegration, McpServer } from "./Mcp.ts"

/** What a creation must say; an update may say any of it. */
const requiredIntegrationFields = Struct.pick(McpIntegration.fields, ["name", "url", "auth_type", "transport"])

const optionalIntegrationFields = {
  ...Struct.map(
    Struct.pick(McpIntegration.fields, [
      "slug",
      "configurations",
      "secret_mappings",
      "global_workspace_access",
      "workspace_ids",
      "new_capabilities_enabled"
    ]),
    Schema.optionalKey
  ),
  description: Schema.optionalKey(Schema.String),
  workspace_id: Schema.optionalKey(Schema.String),
  organisation_id: Schema.optionalKey(Schema.String)
}

export const CreateMcpIntegration = Schema.Struct({ ...requiredIntegrationFields, ...optionalIntegrationFields })

export const UpdateMcpIntegration = Schema.Struct({
  ...Struct.map(requiredIntegrationFields, Schema.optionalKey),
  ...optionalIntegrationFields
})

export const CreateMcpServer = Schema.Struct({
  ...Struct.pick(McpServer.fields, ["name", "mcp_integration_id"]),
  ...Struct.map(Struct.pick(McpServer.fields, ["slug"]), Schema.optionalKey),
  workspace_id: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String)
})

/** What a server's update may change (Portkey's `UpdateMcpServer`): its name and description. */
export const UpdateMcpServer = Schema.Struct({
  ...Struct.map(Struct.pick(McpServer.fields, ["name"]), Schema.optionalKey),
  description: Schema.optionalKey(Schema.NullOr(Schema.String))
})

/**
 * Which workspaces an organisation-level integration is open to, as Portkey's SDKs change it
 * (their workspaces change): each named workspace on or off, and the global access.
 * Without `override_existing_workspace_access` the workspaces not named keep their access.
 */
export const SetMcpIntegrationWorkspaces = Schema.Struct({
  workspaces: Schema.Array(Schema.Struct({ id: Schema.String, enabled: Schema.Boolean })),
  global_workspace_access: Schema.optionalKey(Schema.NullOr(Schema.Struct({ enabled: Schema.Boolean }))),
  override_existing_workspace_access: Schema.optionalKey(Schema.Boolean)
})
export type IntegrationWorkspacesInput = typeof SetMcpIntegrationWorkspaces.Type

/** Portkey's sync fields that push what a server offers: the gateway lists it from the server itself. */
export const PUSHED_SYNC_FIELDS = ["server_info", "capabilities"] as const

/**
 * A sync as Portkey's SDKs send it (their `sync`): no body, or a body pushing the server's
 * info and capabilities, which is refused by name (the gateway asks the server).
 */
export const SyncMcpIntegration = Schema.Struct(unsupportedFields(PUSHED_SYNC_FIELDS))
export type SyncInput = typeof SyncMcpIntegration.Type

/** An integration's fields as a create or an update gives them (an update's are all optional). */
export type IntegrationInput = typeof UpdateMcpIntegration.Type

export type ServerInput = typeof CreateMcpServer.Type

export type ServerUpdateInput = typeof UpdateMcpServer.Type
