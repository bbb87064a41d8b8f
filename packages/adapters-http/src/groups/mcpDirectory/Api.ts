/**
 * The registry API for MCP clients, in the official MCP registry's format (`/v0.1`): the usable MCP servers
 * of the caller's workspace (an admin key's: its organisation's, or `workspace_id`'s). Authenticated by the API
 * key like `/v1`; errors in the project's envelope.
 */
import { MAX_DIRECTORY_LIMIT, ServerList, ServerResponse } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { InstantQuery, RequestInputRules } from "../../InputRules.ts"
import { ApiKeyAuth } from "../../Security.ts"

const IncludeDeleted = Schema.optionalKey(
  Schema.Literals(["true", "false"]).annotate({
    description: "Servers of archived integrations too, as deleted (always with updated_since)."
  })
)

export class McpDirectoryGroup extends HttpApiGroup.make("mcpDirectory")
  .add(
    HttpApiEndpoint.get("listServers", "/servers", {
      query: {
        limit: Schema.optionalKey(
          Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_DIRECTORY_LIMIT })).annotate({
            description: `Servers per page, 1 to ${MAX_DIRECTORY_LIMIT}; default 30.`
          })
        ),
        cursor: Schema.optionalKey(Schema.String.annotate({ description: "metadata.nextCursor of the page before." })),
        search: Schema.optionalKey(Schema.String),
        updated_since: Schema.optionalKey(InstantQuery),
        include_deleted: IncludeDeleted,
        workspace_id: Schema.optionalKey(Schema.String)
      },
      success: ServerList,
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "MCP servers as server.json documents, keyset-paged: follow metadata.nextCursor until it is absent."
    ),
    HttpApiEndpoint.get("latestVersion", "/servers/:serverName/versions/latest", {
      params: { serverName: Schema.String },
      query: { include_deleted: IncludeDeleted },
      success: ServerResponse,
      error: CommonErrors
    }).annotate(OpenApi.Description, "One server by its URL-encoded name (io.gateway-control.<workspace>%2F<slug>).")
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v0.1")
{}
