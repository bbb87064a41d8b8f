import { ApiKey } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { created, deleteByIdEndpoint, Description, getByIdEndpoint, listEndpoint, v1Group } from "../Common.ts"

export const CreateApiKey = Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["name", "scopes"]),
  description: Schema.optionalKey(Description),
  workspace_id: Schema.optionalKey(Schema.String),
  user_id: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.String)
})

/** The only answer that holds the plaintext key. */
export const IssuedApiKey = created(Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["id"]),
  key: Schema.String,
  object: Schema.Literal("api-key")
}))

export const RevokedApiKey = Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["id"]),
  object: Schema.Literal("api-key"),
  status: Schema.Literal("revoked")
})

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
        "Creates an API key: organisation/service (admin key), workspace/service or workspace/user. The plaintext key is returned only here."
      ),
      listEndpoint("list", "/api-keys", ApiKey),
      getByIdEndpoint("get", "/api-keys/:id", ApiKey),
      deleteByIdEndpoint("revoke", "/api-keys/:id", RevokedApiKey)
    )
) {}
