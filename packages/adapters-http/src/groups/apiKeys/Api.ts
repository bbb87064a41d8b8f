import {
  ApiKey,
  ApiKeyStatus,
  ApiKeyType,
  CreateApiKey,
  RotateApiKey,
  RotationPolicy,
  UpdateApiKey,
  UsageLimits
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import {
  ById,
  created,
  deleteByIdEndpoint,
  getByIdEndpoint,
  listOf,
  updateEndpoint,
  v1Group,
  WorkspaceListQuery
} from "../Common.ts"

/**
 * A key as our API and Portkey's `ApiKeyObject` describe it. Portkey declares `description`, `workspace_id`,
 * `user_id`, `expires_at` as strings and `usage_limits` as an object: absent rather than null when there is
 * none (ApiKeys/Http.ts). `key` is Portkey's name of `masked_key` on a read.
 */
export const ApiKeyAnswer = Schema.Struct({
  ...ApiKey.fields,
  description: Schema.optionalKey(Schema.String),
  workspace_id: Schema.optionalKey(Schema.String),
  user_id: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.String),
  usage_limits: Schema.optionalKey(UsageLimits),
  rotation_policy: Schema.optionalKey(RotationPolicy),
  key: Schema.String,
  object: Schema.Literal("api-key")
})

/** The only answer that holds the plaintext key. */
export const IssuedApiKey = created(Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["id"]),
  key: Schema.String,
  object: Schema.Literal("api-key")
}))

/** The key with its new secret, shown this once, and when the old one stops working. */
export const RotatedApiKey = Schema.Struct({
  ...ApiKeyAnswer.fields,
  /** Portkey's name of `transition_ends_at`. */
  key_transition_expires_at: Schema.String
})

export const RevokedApiKey = Schema.Struct({ ...ApiKeyAnswer.fields, status: Schema.Literal("revoked") })

export const ApiKeyListQuery = {
  ...WorkspaceListQuery,
  status: Schema.optionalKey(ApiKeyStatus),
  type: Schema.optionalKey(ApiKeyType),
  name: Schema.optionalKey(Schema.String.annotate({ description: "Part of the key's name, in any case." })),
  last_used_before: Schema.optionalKey(
    Schema.String.annotate({ description: "ISO 8601 date-time: keys last used before it, or never used." })
  )
}

export class ApiKeysGroup extends v1Group(
  HttpApiGroup.make("apiKeys")
    .add(
      HttpApiEndpoint.post("create", "/api-keys/:type/:subType", {
        params: { type: Schema.String, subType: Schema.String },
        payload: CreateApiKey,
        success: IssuedApiKey,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Creates an API key: organisation/service (admin key), workspace/service or workspace/user. The plaintext key is returned only here. " +
          "user_id names whom a workspace/user or admin key acts as; expires_at defaults to the calling key's and may not be later."
      ),
      HttpApiEndpoint.get("list", "/api-keys", {
        query: ApiKeyListQuery,
        success: listOf(ApiKeyAnswer),
        error: CommonErrors
      }),
      getByIdEndpoint("get", "/api-keys/:id", ApiKeyAnswer),
      updateEndpoint("update", "/api-keys/:id", ById, UpdateApiKey, ApiKeyAnswer).annotate(
        OpenApi.Description,
        "Changes a key's name, description, expiry, scopes or rate limits. Its scopes can only be ones the calling key " +
          "holds, as at creation; no key changes its own rate limits; the key may not outlive the calling key."
      ),
      HttpApiEndpoint.post("rotate", "/api-keys/:id/rotate", {
        params: ById,
        // The body may be left out: the default transition.
        payload: [RotateApiKey, Schema.Null],
        success: RotatedApiKey,
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "Gives the key a new secret, returned only here. The current secret keeps working until transition_ends_at; " +
          "a second rotation before then answers 409."
      ),
      deleteByIdEndpoint("revoke", "/api-keys/:id", RevokedApiKey)
    )
) {}
