import { type ApiKey, ApiKeys, type ApiKeyType, InvalidRequest, type UnknownScopes } from "@gateway-control/domain"
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

/**
 * A key in the answer's shape: the fields Portkey declares as strings or objects left out when null, and the
 * masked key also under Portkey's name, `key`.
 */
const answer = (key: ApiKey) => {
  const { description, expires_at, rotation_policy, usage_limits, user_id, workspace_id, ...rest } = key
  return {
    ...rest,
    ...(description === null ? {} : { description }),
    ...(workspace_id === null ? {} : { workspace_id }),
    ...(user_id === null ? {} : { user_id }),
    ...(expires_at === null ? {} : { expires_at }),
    ...(usage_limits === null ? {} : { usage_limits }),
    ...(rotation_policy === null ? {} : { rotation_policy }),
    key: key.masked_key,
    object: "api-key" as const
  }
}

/** Unknown scopes, as a 400 saying where the known ones are listed. */
const unknownScopes = (error: UnknownScopes) =>
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
          }, request).pipe(Effect.map((page) => ({ ...page, items: page.items.map(answer) })))),
      get: ({ params }) => asCaller((principal) => apiKeys.get(principal, params.id)).pipe(Effect.map(answer)),
      update: ({ params, payload }) =>
        asCaller((principal) =>
          apiKeys.update(principal, params.id, payload).pipe(Effect.catchTag("UnknownScopes", unknownScopes))
        ).pipe(Effect.map(answer)),
      // The record keeps the request, which holds no secret; the new secret is in the answer only.
      rotate: ({ params, payload }) =>
        asCaller((principal) => apiKeys.rotate(principal, params.id, payload ?? {})).pipe(
          Effect.map(({ key, plaintext }) => ({
            ...answer(key),
            key: Redacted.value(plaintext),
            key_transition_expires_at: key.transition_ends_at ?? key.last_updated_at
          }))
        ),
      revoke: ({ params }) =>
        asCaller((principal) => apiKeys.revoke(principal, params.id)).pipe(
          Effect.map((key) => ({ ...answer(key), status: "revoked" as const }))
        )
    }))
)
