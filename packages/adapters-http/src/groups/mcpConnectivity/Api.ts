/**
 * The MCP registry's live side: testing a server, and an integration's capabilities (sync from its server,
 * list, turn on and off). Schemas come from the domain's.
 */
import {
  CapabilityToggle,
  CapabilityType,
  IntegrationMetadata,
  JsonObject,
  McpCapability,
  ServerTestResult,
  SyncMcpIntegration,
  SyncResult
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout } from "../../ApiErrors.ts"
import { ById, pagedList, PagingQuery, v1Group } from "../Common.ts"

/** A capability as reads show it: `input_schema` only where there is one. */
export const McpCapabilityView = Schema.Struct({
  ...Struct.pick(McpCapability.fields, ["name", "type", "description", "enabled"]),
  input_schema: Schema.optionalKey(JsonObject)
})

export const SetMcpCapabilities = Schema.Struct({
  capabilities: Schema.Array(CapabilityToggle).check(Schema.isMinLength(1))
})

export class McpConnectivityGroup extends v1Group(
  HttpApiGroup.make("mcpConnectivity")
    .add(
      HttpApiEndpoint.post("testServer", "/mcp-servers/:mcpServerId/test", {
        params: { mcpServerId: Schema.String },
        success: ServerTestResult,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Connects to the server's MCP endpoint (initialize, then ping) and reports the outcome and its latency. " +
          "A server that cannot be used answers 200 with success false; a URL the address guard refuses, 400."
      ),
      HttpApiEndpoint.post("testIntegration", "/mcp-integrations/:id/test", {
        params: ById,
        success: ServerTestResult,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Connects to the integration's MCP endpoint (initialize, then ping), as the server test does, for its managers."
      ),
      HttpApiEndpoint.post("syncIntegration", "/mcp-integrations/:id/sync", {
        params: ById,
        payload: SyncMcpIntegration,
        success: SyncResult,
        error: [...CommonErrors, BadGateway, GatewayTimeout]
      }).annotate(
        OpenApi.Description,
        "Portkey's path of the capabilities sync: the gateway lists them from the server; server_info and " +
          "capabilities pushed in the body are refused (400)."
      ),
      HttpApiEndpoint.get("integrationMetadata", "/mcp-integrations/:id/metadata", {
        params: ById,
        success: IntegrationMetadata,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "When the integration's capabilities were last synced, and which kinds the server lists."
      ),
      HttpApiEndpoint.get("listServerCapabilities", "/mcp-servers/:mcpServerId/capabilities", {
        params: { mcpServerId: Schema.String },
        query: {
          type: Schema.optionalKey(CapabilityType),
          search: Schema.optionalKey(Schema.String),
          ...PagingQuery,
          page: Schema.optionalKey(
            Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
              description: "Portkey's page, from 1 (current_page, from 0, is used when both are given)."
            })
          )
        },
        success: pagedList(McpCapabilityView),
        error: CommonErrors
      }).annotate(OpenApi.Description, "The capabilities of the server's integration, for the server's readers."),
      HttpApiEndpoint.post("syncCapabilities", "/mcp-integrations/:id/capabilities/sync", {
        params: ById,
        success: SyncResult,
        error: [...CommonErrors, BadGateway, GatewayTimeout]
      }).annotate(
        OpenApi.Description,
        "Lists the server's tools, prompts, resources and resource templates (every page) and stores them, " +
          "keeping earlier on/off choices; new ones start as new_capabilities_enabled says."
      ),
      HttpApiEndpoint.get("listCapabilities", "/mcp-integrations/:id/capabilities", {
        params: ById,
        query: {
          type: Schema.optionalKey(CapabilityType),
          search: Schema.optionalKey(Schema.String),
          ...PagingQuery,
          page: Schema.optionalKey(
            Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
              description: "Portkey's page, from 1 (current_page, from 0, is used when both are given)."
            })
          )
        },
        success: pagedList(McpCapabilityView),
        error: CommonErrors
      }),
      HttpApiEndpoint.put("setCapabilities", "/mcp-integrations/:id/capabilities", {
        params: ById,
        payload: SetMcpCapabilities,
        success: Schema.Struct({ data: Schema.Array(McpCapabilityView) }),
        error: CommonErrors
      }).annotate(OpenApi.Description, "Turns the named capabilities on or off; answers them as they now are.")
    )
) {}
