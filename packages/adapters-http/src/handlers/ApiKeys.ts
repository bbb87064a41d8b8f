import { ApiKeys, type ApiKeyType, CurrentPrincipal, InvalidRequest } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../Api.ts"
import { fromDomain } from "../ApiErrors.ts"
import { audited } from "../internal/audited.ts"
import { listBody, pageOf } from "../internal/listing.ts"

const KEY_TYPES: Record<string, ApiKeyType> = {
  "organisation/service": "organisation-service",
  "workspace/service": "workspace-service",
  "workspace/user": "workspace-user"
}

export const ApiKeysHandlers = HttpApiBuilder.group(
  GatewayApi,
  "apiKeys",
  Effect.fnUntraced(function*(handlers) {
    const apiKeys = yield* ApiKeys
    return handlers.handleAll({
      create: ({ params, payload }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const type = KEY_TYPES[`${params.type}/${params.subType}`]
          const create = type === undefined
            ? Effect.fail(InvalidRequest.of(
              `Unknown key type '${params.type}/${params.subType}': use organisation/service, workspace/service or workspace/user.`,
              "type"
            ))
            : apiKeys.create(principal, {
              type,
              name: payload.name,
              description: payload.description,
              scopes: payload.scopes,
              workspaceId: payload.workspace_id,
              userId: payload.user_id,
              expiresAt: payload.expires_at
            }).pipe(Effect.catchTag("UnknownScopes", (e) =>
              Effect.fail(InvalidRequest.of(`${e.message} GET /v1/scopes lists the known ones.`, "scopes"))))
          const issued = yield* audited({
            action: "create",
            resourceType: "api_key",
            resourceId: (issued) =>
              issued.key.id,
            workspaceId: (issued) => issued.key.workspace_id,
            status: 201,
            body: payload,
            successBody: ({ key }) => ({
              ...payload,
              created_by_user_id: key.created_by_user_id,
              created_by_api_key_id: key.created_by_api_key_id
            })
          }, create)
          return { id: issued.key.id, key: Redacted.value(issued.plaintext), object: "api-key" as const }
        }).pipe(Effect.mapError(fromDomain)),
      list: ({ query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const request = pageOf(query)
          const page = yield* apiKeys.list(principal, query.workspace_id, request)
          return listBody(page, request)
        }).pipe(Effect.mapError(fromDomain)),
      get: ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) => apiKeys.get(principal, params.id)).pipe(
          Effect.mapError(fromDomain)
        ),
      revoke: ({ params }) =>
        Effect.flatMap(Effect.service(CurrentPrincipal), (principal) =>
          audited({
            action: "revoke",
            resourceType: "api_key",
            resourceId: params.id,
            workspaceId: (key) => key.workspace_id,
            status: 200,
            body: null
          }, apiKeys.revoke(principal, params.id))).pipe(
            Effect.map((key) => ({ id: key.id, object: "api-key" as const, status: "revoked" as const })),
            Effect.mapError(fromDomain)
          )
    })
  })
)
