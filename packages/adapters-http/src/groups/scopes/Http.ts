import { ensureAllowed, ScopeNames, Target } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller } from "../../internal/caller.ts"

const catalogue = { object: "list" as const, data: ScopeNames }

export const ScopesHandlers = HttpApiBuilder.group(GatewayApi, "scopes", (handlers) =>
  handlers.handleAll({
    list: () =>
      asCaller((principal) =>
        ensureAllowed(principal, "scopes.list", Target.own(principal), {
          type: "organisation",
          id: principal.organisationId
        })
      ).pipe(Effect.as(catalogue))
  }))
