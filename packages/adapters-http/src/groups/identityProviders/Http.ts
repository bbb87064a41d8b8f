import { type IdentityProvider, IdentityProviders } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const details = (provider: IdentityProvider) => ({ ...provider, object: "identity-provider" as const })

export const IdentityProvidersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "identityProviders",
  withService(IdentityProviders, (handlers, providers) =>
    handlers.handleAll({
      create: ({ payload }) => asCaller((principal) => providers.create(principal, payload)).pipe(Effect.map(details)),
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) => providers.list(principal, request)).pipe(
          Effect.map((list) => ({ ...list, data: list.data.map(details) }))
        ),
      get: ({ params }) => asCaller((principal) => providers.get(principal, params.id)).pipe(Effect.map(details)),
      update: ({ params, payload }) =>
        asCaller((principal) => providers.update(principal, params.id, payload)).pipe(Effect.map(details)),
      delete: ({ params }) =>
        asCaller((principal) => providers.delete(principal, params.id)).pipe(
          Effect.map((provider) => ({ ...details(provider), deleted: true as const }))
        )
    }))
)
