import { TrustPolicies, type TrustPolicy } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"
import { unknownScopes } from "../apiKeys/Http.ts"

const details = (policy: TrustPolicy) => ({ ...policy, object: "trust-policy" as const })

export const TrustPoliciesHandlers = HttpApiBuilder.group(
  GatewayApi,
  "trustPolicies",
  withService(TrustPolicies, (handlers, policies) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) =>
          policies.create(principal, payload).pipe(Effect.catchTag("UnknownScopes", unknownScopes))
        ).pipe(Effect.map(details)),
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) => policies.list(principal, request)).pipe(
          Effect.map((list) => ({ ...list, data: list.data.map(details) }))
        ),
      get: ({ params }) => asCaller((principal) => policies.get(principal, params.id)).pipe(Effect.map(details)),
      update: ({ params, payload }) =>
        asCaller((principal) =>
          policies.update(principal, params.id, payload).pipe(Effect.catchTag("UnknownScopes", unknownScopes))
        ).pipe(Effect.map(details)),
      delete: ({ params }) =>
        asCaller((principal) => policies.delete(principal, params.id)).pipe(
          Effect.map((policy) => ({ ...details(policy), deleted: true as const }))
        )
    }))
)
