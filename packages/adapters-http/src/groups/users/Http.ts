import {
  type MemberFilter,
  type MemberWithUser,
  nameParts,
  type User,
  type UserFilter,
  Users
} from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { listBody } from "../../internal/listing.ts"

const userAnswer = (user: User) => ({ ...user, ...nameParts(user.name), object: "user" as const })

const workspaceUser = ({ member, user }: MemberWithUser) => ({
  ...member,
  ...nameParts(user.name),
  object: "workspace-user" as const,
  id: user.id,
  email: user.email,
  org_role: user.role,
  status: "active" as const
})

export const UsersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "users",
  withService(Users, (handlers, users) => {
    const listUsers = (
      query: { readonly page_size?: number | undefined; readonly current_page?: number | undefined },
      filter: UserFilter = {}
    ) =>
      pageAsCaller(
        query,
        (principal, request) =>
          Effect.map(users.list(principal, request, filter), (page) => ({ ...page, items: page.items.map(userAnswer) }))
      )
    const listMembers = (
      workspaceId: string,
      query: { readonly page_size?: number; readonly current_page?: number },
      filter: MemberFilter = {}
    ) =>
      pageAsCaller(query, (principal, request) =>
        Effect.map(
          users.listMembers(principal, workspaceId, request, filter),
          (page) => ({ ...page, items: page.items.map(workspaceUser) })
        ))
    const removeMember = (workspaceId: string, userId: string) =>
      asCaller((principal) => users.removeMember(principal, workspaceId, userId)).pipe(
        Effect.as({
          object: "workspace-member" as const,
          workspace_id: workspaceId,
          user_id: userId,
          deleted: true as const
        })
      )
    return handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => users.create(principal, payload)).pipe(
          Effect.map((user) => ({ ...user, object: "user" as const }))
        ),
      list: ({ query }) => listUsers(query),
      addMember: ({ params, payload }) =>
        asCaller((principal) => users.addMember(principal, params.workspaceId, payload)).pipe(
          Effect.map((member) => ({ ...member, object: "workspace-member" as const }))
        ),
      listMembers: ({ params, query }) => listMembers(params.workspaceId, query),
      removeMember: ({ params }) => removeMember(params.workspaceId, params.userId),
      adminList: ({ query }) =>
        listUsers({
          page_size: query.page_size ?? query.pageSize,
          current_page: query.current_page ?? query.currentPage
        }, { role: query.role, email: query.email }),
      get: ({ params }) =>
        asCaller((principal) => users.get(principal, params.userId)).pipe(
          Effect.map(({ user, workspace_ids }) => ({ ...userAnswer(user), workspace_ids }))
        ),
      update: ({ params, payload }) =>
        asCaller((principal) => users.update(principal, params.userId, payload)).pipe(Effect.map(userAnswer)),
      delete: ({ params }) =>
        asCaller((principal) => users.remove(principal, params.userId)).pipe(
          Effect.map((user) => ({ id: user.id, object: "user" as const, deleted: true as const }))
        ),
      addMembers: ({ params, payload }) =>
        asCaller((principal) => users.addMembers(principal, params.workspaceId, payload)).pipe(
          Effect.map((added) =>
            listBody({ items: added.map(workspaceUser), total: added.length }, { offset: 0, limit: added.length })
          )
        ),
      listWorkspaceUsers: ({ params, query }) =>
        listMembers(params.workspaceId, query, {
          // Portkey's workspace role `admin` is our `manager`.
          role: query.role === "admin" ? "manager" : query.role,
          email: query.email
        }),
      getMember: ({ params }) =>
        asCaller((principal) => users.getMember(principal, params.workspaceId, params.userId)).pipe(
          Effect.map(workspaceUser)
        ),
      updateMember: ({ params, payload }) =>
        asCaller((principal) => users.updateMember(principal, params.workspaceId, params.userId, payload)).pipe(
          Effect.map(workspaceUser)
        ),
      removeWorkspaceUser: ({ params }) => removeMember(params.workspaceId, params.userId)
    })
  })
)
