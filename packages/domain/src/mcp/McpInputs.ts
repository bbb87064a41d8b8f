/**
 * What a caller gives to create or change an MCP integration, or to create a server: one schema per use case,
 * derived from the entities (Mcp.ts), in the API's casing. The HTTP API takes them as its payloads and the
 * use cases (McpIntegrations.ts, McpServers.ts) as their inputs.
 */
import { Schema, Struct } from "effect"
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

/** An integration's fields as a create or an update gives them (an update's are all optional). */
export type IntegrationInput = typeof UpdateMcpIntegration.Type

export type ServerInput = typeof CreateMcpServer.Type
