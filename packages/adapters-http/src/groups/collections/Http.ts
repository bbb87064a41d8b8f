import { type Collection, Collections } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const details = (collection: Collection) => ({ ...collection, object: "collection" as const })

export const CollectionsHandlers = HttpApiBuilder.group(
  GatewayApi,
  "collections",
  withService(Collections, (handlers, collections) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => collections.create(principal, payload)).pipe(Effect.map(details)),
      list: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) => collections.list(principal, query.workspace_id, query.search, request)
        ).pipe(Effect.map((list) => ({ ...list, data: list.data.map(details) }))),
      get: ({ params, query }) =>
        asCaller((principal) => collections.get(principal, params.collectionId, query.workspace_id)).pipe(
          Effect.map(details)
        ),
      update: ({ params, payload, query }) =>
        asCaller((principal) => collections.update(principal, params.collectionId, payload, query.workspace_id)).pipe(
          Effect.map(details)
        ),
      delete: ({ params, query }) =>
        asCaller((principal) => collections.remove(principal, params.collectionId, query.workspace_id)).pipe(
          Effect.map((collection) => ({ id: collection.id, object: "collection" as const, deleted: true as const }))
        )
    }))
)
