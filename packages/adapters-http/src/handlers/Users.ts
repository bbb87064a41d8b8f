import { CurrentPrincipal, Users } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain } from "../ApiErrors.ts"
import { audited } from "../internal/audited.ts"
import { listBody, pageOf } from "../internal/listing.ts"

export const UsersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "users",
  Effect.fnUntraced(function*(handlers) {
    const users = yield* Users
    const withPrincipal = Effect.service(CurrentPrincipal)
    return handlers.handleAll({
      create: ({ payload }) =>
        Effect.flatMap(withPrincipal, (principal) =>
          audited({
            action: "create",
            resourceType: "user",
            resourceId: (user) => user.id,
            workspaceId: null,
            status: 201,
            body: payload
          }, users.create(principal, payload))).pipe(
            Effect.map((user) => ({ id: user.id, object: "user" as const })),
            Effect.mapError(fromDomain)
          ),
      list: ({ query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const page = yield* users.list(yield* withPrincipal, request)
          return listBody(page, request)
        }).pipe(Effect.mapError(fromDomain)),
      addMember: ({ params, payload }) =>
        Effect.flatMap(withPrincipal, (principal) =>
          audited({
            action: "create",
            resourceType: "workspace_member",
            resourceId: payload.user_id,
            workspaceId: params.workspaceId,
            status: 201,
            body: payload
          }, users.addMember(principal, params.workspaceId, { userId: payload.user_id, role: payload.role }))).pipe(
            Effect.map((member) => ({
              object: "workspace-member" as const,
              workspace_id: member.workspace_id,
              user_id: member.user_id,
              role: member.role
            })),
            Effect.mapError(fromDomain)
          ),
      listMembers: ({ params, query }) =>
        Effect.gen(function*() {
          const request = pageOf(query)
          const page = yield* users.listMembers(yield* withPrincipal, params.workspaceId, request)
          return listBody(page, request)
        }).pipe(Effect.mapError(fromDomain)),
      removeMember: ({ params }) =>
        Effect.flatMap(withPrincipal, (principal) =>
          audited({
            action: "delete",
            resourceType: "workspace_member",
            resourceId: params.userId,
            workspaceId: params.workspaceId,
            status: 200,
            body: null
          }, users.removeMember(principal, params.workspaceId, params.userId))).pipe(
            Effect.as({
              object: "workspace-member" as const,
              workspace_id: params.workspaceId,
              user_id: params.userId,
              deleted: true as const
            }),
            Effect.mapError(fromDomain)
          )
    })
  })
)
