import { ApiKeys, type ApiKeyType, InvalidRequest, type UnknownScopes } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, auditedAsCaller, auditedResourceChange, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const KEY_TYPES: Record<string, ApiKeyType> = {
  "organisation/service": "organisation-service",
  "workspace/service": "workspace-service",
  "workspace/user": "workspace-user"
}

/** Unknown scopes, as a 400 saying where the known ones are listed. */
const unknownScopes = (error: UnknownScopes) =>
  Effect.fail(InvalidRequest.of(`${error.message} GET /v1/scopes lists the known ones.`, "scopes"))

export const ApiKeysHandlers = HttpApiBuilder.group(
  GatewayApi,
  "apiKeys",
  withService(ApiKeys, (handlers, apiKeys) =>
    handlers.handleAll({
      create: ({ params, payload }) => {
        const type = KEY_TYPES[`${params.type}/${params.subType}`]
        return auditedAsCaller((principal) =>
          type === undefined
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
              expiresAt: payload.expires_at,
              rateLimits: payload.rate_limits
            }).pipe(Effect.catchTag("UnknownScopes", unknownScopes)), {
          endpoint: "apiKeys.create",
          resourceId: (issued) => issued.key.id,
          workspaceId: (issued) => issued.key.workspace_id,
          body: payload,
          successBody: ({ key }) => ({
            ...payload,
            created_by_user_id: key.created_by_user_id,
            created_by_api_key_id: key.created_by_api_key_id
          })
        }).pipe(
          Effect.map(({ key, plaintext }) => ({ ...key, key: Redacted.value(plaintext), object: "api-key" as const }))
        )
      },
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
        auditedResourceChange(
          "apiKeys.update",
          { ref: params.id, body: payload },
          (principal) =>
            apiKeys.update(principal, params.id, {
              name: payload.name,
              description: payload.description,
              scopes: payload.scopes,
              expiresAt: payload.expires_at,
              rateLimits: payload.rate_limits
            }).pipe(Effect.catchTag("UnknownScopes", unknownScopes))
        ).pipe(Effect.map((key) => ({ ...key, object: "api-key" as const }))),
      // The record keeps the request, which holds no secret; the new secret is in the answer only.
      rotate: ({ params, payload }) =>
        auditedAsCaller(
          (principal) => apiKeys.rotate(principal, params.id, { transitionPeriodMs: payload?.transition_period_ms }),
          {
            endpoint: "apiKeys.rotate",
            resourceId: params.id,
            workspaceId: ({ key }) => key.workspace_id,
            body: payload ?? null,
            successBody: ({ key }) => ({ ...payload, transition_ends_at: key.transition_ends_at })
          }
        ).pipe(
          Effect.map(({ key, plaintext }) => ({ ...key, key: Redacted.value(plaintext), object: "api-key" as const }))
        ),
      revoke: ({ params }) =>
        auditedResourceChange(
          "apiKeys.revoke",
          { ref: params.id, body: null },
          (principal) => apiKeys.revoke(principal, params.id)
        ).pipe(
          Effect.map((key) => ({ ...key, object: "api-key" as const, status: "revoked" as const }))
        )
    }))
)
