import { Users } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

export const UsersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "users",
  withService(Users, (handlers, users) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => users.create(principal, payload)).pipe(
          Effect.map((user) => ({ ...user, object: "user" as const }))
        ),
      list: ({ query }) => pageAsCaller(query, users.list),
      addMember: ({ params, payload }) =>
        asCaller((principal) => users.addMember(principal, params.workspaceId, payload)).pipe(
          Effect.map((member) => ({ ...member, object: "workspace-member" as const }))
        ),
      listMembers: ({ params, query }) =>
        pageAsCaller(query, (principal, request) => users.listMembers(principal, params.workspaceId, request)),
      removeMember: ({ params }) =>
        asCaller((principal) => users.removeMember(principal, params.workspaceId, params.userId)).pipe(
          Effect.as({
            object: "workspace-member" as const,
            workspace_id: params.workspaceId,
            user_id: params.userId,
            deleted: true as const
          })
        )
    }))
)
