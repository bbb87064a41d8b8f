import { CurrentPrincipal, Workspaces } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain } from "../ApiErrors.ts"
import { audited } from "../internal/audited.ts"
import { listBody, pageOf } from "../internal/listing.ts"

export const WorkspacesHandlers = HttpApiBuilder.group(
  GatewayApi,
  "workspaces",
  Effect.fnUntraced(function*(handlers) {
    const workspaces = yield* Workspaces
    return handlers.handleAll({
      create: ({ payload }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) =>
          audited({
            action: "create",
            resourceType: "workspace",
            resourceId: (workspace) => workspace.id,
            workspaceId: (workspace) => workspace.id,
            status: 201,
            body: payload
          }, workspaces.create(principal, payload))).pipe(
            Effect.map((workspace) => ({ id: workspace.id, slug: workspace.slug, object: "workspace" as const })),
            Effect.mapError(fromDomain)
          ),
      list: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const request = pageOf(query)
          const page = yield* workspaces.list(principal, request)
          return listBody(page, request)
        }).pipe(Effect.mapError(fromDomain)),
      get: ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => workspaces.get(principal, params.workspaceId))
          .pipe(Effect.mapError(fromDomain))
    })
  })
)
