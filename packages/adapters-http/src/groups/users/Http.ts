import { Users } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { auditedAsCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

export const UsersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "users",
  withService(Users, (handlers, users) =>
    handlers.handleAll({
      create: ({ payload }) =>
        auditedAsCaller((principal) => users.create(principal, payload), {
          endpoint: "users.create",
          resourceId: (user) => user.id,
          workspaceId: null,
          body: payload
        }).pipe(
          Effect.map((user) => ({ ...user, object: "user" as const }))
        ),
      list: ({ query }) => pageAsCaller(query, users.list),
      addMember: ({ params, payload }) =>
        auditedAsCaller(
          (principal) =>
            users.addMember(principal, params.workspaceId, { userId: payload.user_id, role: payload.role }),
          {
            endpoint: "users.addMember",
            resourceId: payload.user_id,
            workspaceId: params.workspaceId,
            body: payload
          }
        ).pipe(
          Effect.map((member) => ({ ...member, object: "workspace-member" as const }))
        ),
      listMembers: ({ params, query }) =>
        pageAsCaller(query, (principal, request) => users.listMembers(principal, params.workspaceId, request)),
      removeMember: ({ params }) =>
        auditedAsCaller((principal) => users.removeMember(principal, params.workspaceId, params.userId), {
          endpoint: "users.removeMember",
          resourceId: params.userId,
          workspaceId: params.workspaceId,
          body: null
        }).pipe(
          Effect.as({
            object: "workspace-member" as const,
            workspace_id: params.workspaceId,
            user_id: params.userId,
            deleted: true as const
          })
        )
    }))
)
