import { type Workspace, type WorkspaceFilter, Workspaces } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const answer = (workspace: Workspace) => ({ ...workspace, object: "workspace" as const })

export const WorkspacesHandlers = HttpApiBuilder.group(
  GatewayApi,
  "workspaces",
  withService(Workspaces, (handlers, workspaces) => {
    const create = (payload: Parameters<typeof workspaces.create>[1]) =>
      asCaller((principal) => workspaces.create(principal, payload)).pipe(Effect.map(answer))
    const list = (
      query: { readonly page_size?: number; readonly current_page?: number },
      filter: WorkspaceFilter = {}
    ) =>
      pageAsCaller(
        query,
        (principal, request) =>
          Effect.map(
            workspaces.list(principal, request, filter),
            (page) => ({ ...page, items: page.items.map(answer) })
          )
      )
    const get = (id: string) => asCaller((principal) => workspaces.get(principal, id)).pipe(Effect.map(answer))
    return handlers.handleAll({
      create: ({ payload }) => create(payload),
      list: ({ query }) => list(query),
      get: ({ params }) => get(params.workspaceId),
      adminCreate: ({ payload }) => create(payload),
      adminList: ({ query }) => list(query, { name: query.name, exact_name: query.exact_name, status: query.status }),
      adminGet: ({ params }) => get(params.workspaceId),
      update: ({ params, payload }) =>
        asCaller((principal) => workspaces.update(principal, params.workspaceId, payload)).pipe(Effect.map(answer)),
      delete: ({ params, query }) =>
        asCaller((principal) => workspaces.remove(principal, params.workspaceId, { force: query.force === "true" }))
          .pipe(Effect.map((workspace) => ({ id: workspace.id, object: "workspace" as const, deleted: true as const })))
    })
  })
)
