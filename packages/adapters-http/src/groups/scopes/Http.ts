import { allowedActions, ensureAllowed, type Principal, ScopeNames, Target } from "@gateway-control/domain"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller } from "../../internal/caller.ts"

const callingKey = (principal: Principal) => ({
  id: principal.keyId,
  type: principal.keyType,
  organisation_id: principal.organisationId,
  workspace_id: principal.workspaceId,
  user_id: principal.userId,
  scopes: ScopeNames.filter((scope) => principal.scopes.has(scope))
})

export const ScopesHandlers = HttpApiBuilder.group(GatewayApi, "scopes", (handlers) =>
  handlers.handleAll({
    list: () =>
      asCaller((principal) =>
        ensureAllowed(principal, "scopes.list", Target.own(principal), {
          type: "organisation",
          id: principal.organisationId
        }).pipe(Effect.as({
          object: "list" as const,
          data: ScopeNames,
          key: callingKey(principal),
          actions: allowedActions(principal)
        }))
      )
  }))
