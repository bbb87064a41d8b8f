import { Workspaces } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

export const WorkspacesHandlers = HttpApiBuilder.group(
  GatewayApi,
  "workspaces",
  withService(Workspaces, (handlers, workspaces) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => workspaces.create(principal, payload)).pipe(
          Effect.map((workspace) => ({ ...workspace, object: "workspace" as const }))
        ),
      list: ({ query }) => pageAsCaller(query, workspaces.list),
      get: ({ params }) => asCaller((principal) => workspaces.get(principal, params.workspaceId))
    }))
)
