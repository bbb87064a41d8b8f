import { CurrentPrincipal, ensureAllowed, ScopeNames, Target } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain } from "../ApiErrors.ts"

const catalogue = { object: "list" as const, data: ScopeNames }

export const ScopesHandlers = HttpApiBuilder.group(GatewayApi, "scopes", (handlers) =>
  handlers.handleAll({
    list: () =>
      Effect.flatMap(Effect.service(CurrentPrincipal), (principal) =>
        ensureAllowed(principal, "scopes.list", Target.own(principal), {
          type: "organisation",
          id: principal.organisationId
        })).pipe(
          Effect.as(catalogue),
          Effect.mapError(fromDomain)
        )
  }))
