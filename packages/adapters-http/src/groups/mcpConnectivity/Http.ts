import { type McpCapability, McpConnectivity } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, asCallerOrUpstream, pageAsCaller } from "../../internal/caller.ts"

/** Portkey's 1-based `page` as our `current_page` (which wins when both are given). */
const portkeyPage = (
  query: { readonly page_size?: number; readonly current_page?: number; readonly page?: number }
) => ({
  ...(query.page_size === undefined ? {} : { page_size: query.page_size }),
  ...(query.current_page === undefined && query.page === undefined
    ? {}
    : { current_page: query.current_page ?? query.page! - 1 })
})
import { withService } from "../../internal/groupHandlers.ts"

/** A capability as `McpCapabilityView` encodes it. */
const capabilityView = ({ description, enabled, input_schema, name, type }: McpCapability) =>
  input_schema === null ? { name, type, description, enabled } : { name, type, description, enabled, input_schema }

export const McpConnectivityHandlers = HttpApiBuilder.group(
  GatewayApi,
  "mcpConnectivity",
  withService(McpConnectivity, (handlers, live) =>
    handlers.handleAll({
      testServer: ({ params }) =>
        asCallerOrUpstream((principal) => live.testServer(principal, params.mcpServerId)).pipe(
          Effect.map(({ result }) => result)
        ),
      testIntegration: ({ params }) =>
        asCaller((principal) => live.testIntegration(principal, params.id)).pipe(Effect.map(({ result }) => result)),
      syncIntegration: ({ params, payload }) =>
        asCallerOrUpstream((principal) => live.syncCapabilities(principal, params.id, payload)).pipe(
          Effect.map(({ result }) => result)
        ),
      integrationMetadata: ({ params }) => asCaller((principal) => live.integrationMetadata(principal, params.id)),
      listServerCapabilities: ({ params, query }) =>
        pageAsCaller(portkeyPage(query), (principal, request) =>
          live.serverCapabilities(
            principal,
            params.mcpServerId,
            { type: query.type, search: query.search },
            request
          )).pipe(
            Effect.map((page) => ({ data: page.data.map(capabilityView), total: page.total, has_more: page.has_more }))
          ),
      syncCapabilities: ({ params }) =>
        asCallerOrUpstream((principal) => live.syncCapabilities(principal, params.id)).pipe(
          Effect.map(({ result }) => result)
        ),
      listCapabilities: ({ params, query }) =>
        pageAsCaller(portkeyPage(query), (principal, request) =>
          live.listCapabilities(principal, params.id, { type: query.type, search: query.search }, request)).pipe(
            Effect.map((page) => ({ data: page.data.map(capabilityView), total: page.total, has_more: page.has_more }))
          ),
      setCapabilities: ({ params, payload }) =>
        asCaller((principal) =>
          live.setCapabilities(principal, params.id, payload.capabilities)
        ).pipe(
          Effect.map(({ capabilities }) => ({ data: capabilities.map(capabilityView) }))
        )
    }))
)
