import { type SecretReference, SecretReferences } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const details = (reference: SecretReference) => ({ ...reference, object: "secret-reference" as const })

export const SecretReferencesHandlers = HttpApiBuilder.group(
  GatewayApi,
  "secretReferences",
  withService(SecretReferences, (handlers, references) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => references.create(principal, payload)).pipe(
          Effect.map((reference) => ({ id: reference.id, slug: reference.slug, object: "secret-reference" as const }))
        ),
      list: ({ query }) =>
        pageAsCaller(
          query,
          (principal, request) =>
            references.list(principal, { managerType: query.manager_type, search: query.search }, request)
        ).pipe(Effect.map((list) => ({ ...list, data: list.data.map(details) }))),
      get: ({ params }) => asCaller((principal) => references.get(principal, params.id)).pipe(Effect.map(details)),
      update: ({ params, payload }) =>
        asCaller((principal) => references.update(principal, params.id, payload)).pipe(Effect.map(details)),
      delete: ({ params }) =>
        asCaller((principal) => references.delete(principal, params.id)).pipe(
          Effect.map((reference) => ({ id: reference.id, object: "secret-reference" as const, deleted: true as const }))
        )
    }))
)
