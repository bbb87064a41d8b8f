import {
  CreateMcpIntegration,
  CreateMcpServer,
  McpIntegration,
  McpIntegrationListStatus,
  McpServer,
  UpdateMcpIntegration
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import {
  ById,
  createEndpoint,
  deleteByIdEndpoint,
  getByIdEndpoint,
  pagedList,
  PagingQuery,
  updateEndpoint,
  v1Group
} from "../Common.ts"

/** An integration as reads show it: without its organisation, with how many workspaces can use it. */
export const McpIntegrationView = Schema.Struct({
  ...Struct.omit(McpIntegration.fields, ["organisation_id"]),
  workspaces_count: Schema.Int
})

/** A server as reads show it, with its integration's connection details for service keys. */
export const McpServerView = Schema.Struct({
  ...Struct.omit(McpServer.fields, ["organisation_id"]),
  mcp_integration_details: Schema.optionalKey(
    Schema.Struct(
      Struct.pick(McpIntegration.fields, ["id", "slug", "status", "url", "transport", "auth_type", "configurations"])
    ).annotate({ description: "Present for service keys (organisation-service, workspace-service) only." })
  )
})

const CreatedMcpEntity = Schema.Struct(Struct.pick(McpIntegration.fields, ["id", "slug"]))

export class McpRegistryGroup extends v1Group(
  HttpApiGroup.make("mcpRegistry")
    .add(
      createEndpoint("createIntegration", "/mcp-integrations", CreateMcpIntegration, CreatedMcpEntity),
      HttpApiEndpoint.get("listIntegrations", "/mcp-integrations", {
        query: {
          organisation_id: Schema.optionalKey(Schema.String),
          workspace_id: Schema.optionalKey(Schema.String),
          type: Schema.optionalKey(Schema.Literals(["workspace", "organisation", "all"])),
          status: Schema.optionalKey(McpIntegrationListStatus.annotate({
            description: "active (default): every integration in use, healthy or unhealthy; archived: the others."
          })),
          search: Schema.optionalKey(Schema.String),
          ...PagingQuery
        },
        success: pagedList(McpIntegrationView),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "MCP integrations of the organisation or workspace. organisation_id is required with an admin key."
      ),
      getByIdEndpoint("getIntegration", "/mcp-integrations/:id", McpIntegrationView),
      updateEndpoint("updateIntegration", "/mcp-integrations/:id", ById, UpdateMcpIntegration, McpIntegrationView),
      deleteByIdEndpoint("archiveIntegration", "/mcp-integrations/:id", McpIntegrationView).annotate(
        OpenApi.Description,
        "Archives the integration: hidden from lists unless status=archived is asked."
      ),
      createEndpoint("createServer", "/mcp-servers", CreateMcpServer, CreatedMcpEntity),
      HttpApiEndpoint.get("getServer", "/mcp-servers/:mcpServerId", {
        params: { mcpServerId: Schema.String },
        query: { workspace_id: Schema.optionalKey(Schema.String) },
        success: McpServerView,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "One MCP server by UUID or slug (a slug is looked up in the caller's workspace, or workspace_id with an admin key)."
      ),
      HttpApiEndpoint.get("listServers", "/mcp-servers", {
        query: {
          workspace_id: Schema.optionalKey(Schema.String),
          search: Schema.optionalKey(Schema.String),
          ...PagingQuery
        },
        success: pagedList(McpServerView),
        error: CommonErrors
      })
    )
) {}
