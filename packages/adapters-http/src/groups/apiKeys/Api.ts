import { ApiKey } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import {
  ById,
  created,
  deleteByIdEndpoint,
  Description,
  getByIdEndpoint,
  listEndpoint,
  updateEndpoint,
  v1Group
} from "../Common.ts"

export const CreateApiKey = Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["name", "scopes"]),
  description: Schema.optionalKey(Description),
  workspace_id: Schema.optionalKey(Schema.String),
  user_id: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.String)
})

/** A new name, description or expiry (null clears either), or scopes (only scopes the caller holds). */
export const UpdateApiKey = Schema.Struct({
  ...Struct.map(Struct.pick(CreateApiKey.fields, ["name", "scopes"]), Schema.optionalKey),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.String))
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
      updateEndpoint(
        "update",
        "/api-keys/:id",
        ById,
        UpdateApiKey,
        Schema.Struct({ ...ApiKey.fields, object: Schema.Literal("api-key") })
      ).annotate(
        OpenApi.Description,
        "Changes a key's name, description, expiry or scopes. Its scopes can only be ones the calling key holds, as at creation."
      ),
      deleteByIdEndpoint("revoke", "/api-keys/:id", RevokedApiKey)
    )
) {}
