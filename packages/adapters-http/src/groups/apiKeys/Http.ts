import { ApiKeys, type ApiKeyType, InvalidRequest, type UnknownScopes } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const KEY_TYPES: Record<string, ApiKeyType> = {
  "organisation/service": "organisation-service",
  "workspace/service": "workspace-service",
  "workspace/user": "workspace-user"
}

/** Unknown scopes, as a 400 saying where the known ones are listed. */
export const unknownScopes = (error: UnknownScopes) =>
  Effect.fail(InvalidRequest.of(`${error.message} GET /v1/scopes lists the known ones.`, "scopes"))

export const ApiKeysHandlers = HttpApiBuilder.group(
  GatewayApi,
  "apiKeys",
  withService(ApiKeys, (handlers, apiKeys) =>
    handlers.handleAll({
      create: ({ params, payload }) =>
        asCaller((principal) =>
          apiKeys.create(principal, {
            ...payload,
            // The path names the kind; one the domain does not know is refused there, and recorded.
            type: KEY_TYPES[`${params.type}/${params.subType}`] ?? `${params.type}/${params.subType}`
          }).pipe(Effect.catchTag("UnknownScopes", unknownScopes))
        ).pipe(
          Effect.map(({ key, plaintext }) => ({ ...key, key: Redacted.value(plaintext), object: "api-key" as const }))
        ),
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) =>
          apiKeys.list(principal, {
            workspaceId: query.workspace_id,
            status: query.status,
            type: query.type,
            name: query.name,
            lastUsedBefore: query.last_used_before
          }, request)),
      get: ({ params }) => asCaller((principal) => apiKeys.get(principal, params.id)),
      update: ({ params, payload }) =>
        asCaller((principal) =>
          apiKeys.update(principal, params.id, payload).pipe(Effect.catchTag("UnknownScopes", unknownScopes))
        ).pipe(Effect.map((key) => ({ ...key, object: "api-key" as const }))),
      // The record keeps the request, which holds no secret; the new secret is in the answer only.
      rotate: ({ params, payload }) =>
        asCaller((principal) => apiKeys.rotate(principal, params.id, payload ?? {})).pipe(
          Effect.map(({ key, plaintext }) => ({ ...key, key: Redacted.value(plaintext), object: "api-key" as const }))
        ),
      revoke: ({ params }) =>
        asCaller((principal) => apiKeys.revoke(principal, params.id)).pipe(
          Effect.map((key) => ({ ...key, object: "api-key" as const, status: "revoked" as const }))
        )
    }))
)
