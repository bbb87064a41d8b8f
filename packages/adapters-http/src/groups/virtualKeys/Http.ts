import { type VirtualKey, VirtualKeys } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

/** A virtual key in the answer's shape: also under Portkey's field names, usage limits left out when none. */
const answer = (key: VirtualKey) => {
  const { usage_limits, ...rest } = key
  return {
    ...rest,
    ...(usage_limits === null ? {} : { usage_limits }),
    ai_provider_name: key.provider,
    masked_api_key: key.masked_key,
    status: "active" as const,
    object: "virtual-key" as const
  }
}

export const VirtualKeysHandlers = HttpApiBuilder.group(
  GatewayApi,
  "virtualKeys",
  withService(VirtualKeys, (handlers, virtualKeys) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => virtualKeys.createVirtualKey(principal, payload)).pipe(
          Effect.map((k) => ({ ...k, object: "virtual-key" as const }))
        ),
      list: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) =>
            Effect.map(
              virtualKeys.listVirtualKeys(principal, query.workspace_id, request),
              (page) => ({ ...page, items: page.items.map(answer) })
            )
        ),
      get: ({ params, query }) =>
        asCaller((principal) => virtualKeys.getVirtualKey(principal, params.id, query.workspace_id)).pipe(
          Effect.map(answer)
        ),
      update: ({ params, payload, query }) =>
        asCaller((principal) => virtualKeys.updateVirtualKey(principal, params.id, payload, query.workspace_id)).pipe(
          Effect.map(answer)
        ),
      delete: ({ params, query }) =>
        asCaller((principal) => virtualKeys.deleteVirtualKey(principal, params.id, query.workspace_id)).pipe(
          Effect.map((k) => ({ ...k, object: "virtual-key" as const, deleted: true as const }))
        )
    }))
)
