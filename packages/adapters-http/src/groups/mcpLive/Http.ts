import { type McpCapability, McpConnectivity } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { auditedCallOut, auditedResourceChange, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** A capability as `McpCapabilityView` encodes it. */
const capabilityView = ({ description, enabled, input_schema, name, type }: McpCapability) =>
  input_schema === null ? { name, type, description, enabled } : { name, type, description, enabled, input_schema }

export const McpLiveHandlers = HttpApiBuilder.group(
  GatewayApi,
  "mcpLive",
  withService(McpConnectivity, (handlers, live) =>
    handlers.handleAll({
      // The server is called outside any unit of work; the record of the test follows it.
      testServer: ({ params }) =>
        auditedCallOut(
          "mcpLive.testServer",
          { ref: params.mcpServerId, body: null },
          (principal) => live.testServer(principal, params.mcpServerId),
          ({ result, server }) => Effect.succeed({ id: server.id, workspace_id: server.workspace_id, result })
        ).pipe(Effect.map(({ result }) => result)),
      syncCapabilities: ({ params }) =>
        auditedCallOut(
          "mcpLive.syncCapabilities",
          { ref: params.id, body: null },
          (principal) => live.prepareSync(principal, params.id),
          ({ commit, integration }) =>
            Effect.map(commit, (result) => ({ id: integration.id, workspace_id: integration.workspace_id, result }))
        ).pipe(Effect.map(({ result }) => result)),
      listCapabilities: ({ params, query }) =>
        pageAsCaller(query, (principal, request) =>
          live.listCapabilities(principal, params.id, { type: query.type, search: query.search }, request)).pipe(
            Effect.map((page) => ({ data: page.data.map(capabilityView), total: page.total, has_more: page.has_more }))
          ),
      setCapabilities: ({ params, payload }) =>
        auditedResourceChange(
          "mcpLive.setCapabilities",
          { ref: params.id, body: payload },
          (principal) =>
            Effect.map(
              live.setCapabilities(principal, params.id, payload.capabilities),
              ({ capabilities, integration }) => ({
                id: integration.id,
                workspace_id: integration.workspace_id,
                capabilities
              })
            )
        ).pipe(Effect.map(({ capabilities }) => ({ data: capabilities.map(capabilityView) })))
    }))
)
