import { CredentialHealthChecks, type Provider, Providers } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withServices } from "../../internal/groupHandlers.ts"
import { healthAnswer } from "../integrations/Http.ts"

/**
 * A provider in Portkey's shape: usage limits, rate limits, note and expiry left out when none (Portkey's Node SDK
 * declares them optional and not null; its document allows both).
 */
const answer = (provider: Provider) => {
  const { expires_at, note, rate_limits, usage_limits, ...rest } = provider
  return {
    ...rest,
    ...(usage_limits === null ? {} : { usage_limits }),
    ...(rate_limits === null ? {} : { rate_limits }),
    ...(note === null ? {} : { note }),
    ...(expires_at === null ? {} : { expires_at }),
    object: "provider" as const
  }
}

export const ProvidersHandlers = HttpApiBuilder.group(
  GatewayApi,
  "providers",
  withServices(
    Effect.all({ providers: Effect.service(Providers), checks: Effect.service(CredentialHealthChecks) }),
    (handlers, { checks, providers }) =>
      handlers.handleAll({
        create: ({ payload }) =>
          asCaller((principal) => providers.create(principal, payload)).pipe(
            Effect.map((p) => ({ id: p.id, slug: p.slug, object: "provider" as const }))
          ),
        list: ({ query }) =>
          pageAsCaller(
            query,
            (principal, request) =>
              Effect.map(
                providers.list(principal, query.workspace_id, request),
                (page) => ({ ...page, items: page.items.map(answer) })
              )
          ),
        // One provider's read shows its integration's credential health.
        get: ({ params, query }) =>
          asCaller((principal) =>
            Effect.flatMap(
              providers.get(principal, params.id, query.workspace_id),
              (provider) =>
                Effect.map(checks.current(provider.integration_id), (health) => ({
                  ...answer(provider),
                  ...(Option.isSome(health) ? { credential_health: healthAnswer(health.value) } : {})
                }))
            )
          ),
        update: ({ params, payload, query }) =>
          asCaller((principal) => providers.update(principal, params.id, payload, query.workspace_id)).pipe(
            Effect.map(answer)
          ),
        delete: ({ params, query }) =>
          asCaller((principal) => providers.delete(principal, params.id, query.workspace_id)).pipe(
            Effect.map((p) => ({ id: p.id, object: "provider" as const, deleted: true as const }))
          )
      })
  )
)
