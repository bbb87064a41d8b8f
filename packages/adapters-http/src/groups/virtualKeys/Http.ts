import { VirtualKeys } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

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
          (principal, request) => virtualKeys.listVirtualKeys(principal, query.workspace_id, request)
        ),
      get: ({ params, query }) =>
        asCaller((principal) => virtualKeys.getVirtualKey(principal, params.id, query.workspace_id)),
      update: ({ params, payload, query }) =>
        asCaller((principal) => virtualKeys.updateVirtualKey(principal, params.id, payload, query.workspace_id)).pipe(
          Effect.map((k) => ({ ...k, object: "virtual-key" as const }))
        ),
      delete: ({ params, query }) =>
        asCaller((principal) => virtualKeys.deleteVirtualKey(principal, params.id, query.workspace_id)).pipe(
          Effect.map((k) => ({ ...k, object: "virtual-key" as const, deleted: true as const }))
        )
    }))
)
