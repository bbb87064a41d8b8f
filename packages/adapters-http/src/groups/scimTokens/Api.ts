import { CreateScimToken, ScimToken } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { createEndpoint, deleteByIdEndpoint, getByIdEndpoint, listOf, PagingQuery, v1Group } from "../Common.ts"

export const ScimTokenDetails = Schema.Struct({ ...ScimToken.fields, object: Schema.Literal("scim-token") })

/** A token just created: its record, and its secret, shown this once. */
export const CreatedScimToken = Schema.Struct({ ...ScimTokenDetails.fields, token: Schema.String })

export class ScimTokensGroup extends v1Group(
  HttpApiGroup.make("scimTokens")
    .add(
      createEndpoint("create", "/admin/scim-tokens", CreateScimToken, CreatedScimToken).annotate(
        OpenApi.Description,
        "Creates a bearer token an identity provider presents at /scim/v2 to provision the organisation's users " +
          "and groups. The token is answered here only; it is stored as a digest. Admin keys of organisation " +
          "owners and admins."
      ),
      HttpApiEndpoint.get("list", "/admin/scim-tokens", {
        query: PagingQuery,
        success: listOf(ScimTokenDetails),
        error: CommonErrors
      }).annotate(OpenApi.Description, "The organisation's SCIM tokens, oldest first (never their secrets)."),
      getByIdEndpoint("get", "/admin/scim-tokens/:id", ScimTokenDetails),
      deleteByIdEndpoint("revoke", "/admin/scim-tokens/:id", ScimTokenDetails).annotate(
        OpenApi.Description,
        "Revokes the token: its next SCIM call is refused (401), in every process."
      )
    )
) {}
