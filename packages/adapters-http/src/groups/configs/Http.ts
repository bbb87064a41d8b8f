import { Configs } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

export const ConfigsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "configs",
  withService(Configs, (handlers, configs) =>
    handlers.handleAll({
      create: ({ payload }) => asCaller((principal) => configs.createConfig(principal, payload)),
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) => configs.listConfigs(principal, query.workspace_id, request)),
      get: ({ params, query }) => asCaller((principal) => configs.getConfig(principal, params.id, query.workspace_id)),
      update: ({ params, payload, query }) =>
        asCaller((principal) => configs.updateConfig(principal, params.id, payload, query.workspace_id)).pipe(
          Effect.map((c) => ({ ...c, object: "config" as const }))
        ),
      delete: ({ params, query }) =>
        asCaller((principal) => configs.deleteConfig(principal, params.id, query.workspace_id)).pipe(
          Effect.map((c) => ({ ...c, object: "config" as const, deleted: true as const }))
        )
    }))
)
