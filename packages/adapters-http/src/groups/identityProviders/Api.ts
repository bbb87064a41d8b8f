import { CreateIdentityProvider, IdentityProvider, SignInOption, UpdateIdentityProvider } from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import {
  ById,
  createEndpoint,
  deleteByIdEndpoint,
  deletedOf,
  getByIdEndpoint,
  listOf,
  PagingQuery,
  updateEndpoint,
  v1Group
} from "../Common.ts"

export const IdentityProviderDetails = Schema.Struct({
  ...IdentityProvider.fields,
  object: Schema.Literal("identity-provider")
})

/**
 * The answer of `GET /v1/auth/providers` (public, for the sign-in page): the enabled providers, each with the URL
 * a browser starts signing in at. Served by a browser route beside HttpApi (SignInRoutes.ts).
 */
export const SignInOptions = Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(SignInOption) })

export class IdentityProvidersGroup extends v1Group(
  HttpApiGroup.make("identityProviders")
    .add(
      createEndpoint("create", "/admin/identity-providers", CreateIdentityProvider, IdentityProviderDetails).annotate(
        OpenApi.Description,
        "Adds an OpenID Connect provider people of the organisation sign in with (register the redirect URI " +
          "`${PUBLIC_URL}/auth/oidc/callback` there). client_secret is write-only (answers show client_secret_hint). " +
          "role_map maps a group of groups_claim to an organisation role and workspace roles (by slug); " +
          "allowed_domains lists the email domains whose people are created at their first sign-in (empty: " +
          "invitation only). A role_map that makes owners is an owner's to write. Admin keys of owners and admins."
      ),
      HttpApiEndpoint.get("list", "/admin/identity-providers", {
        query: PagingQuery,
        success: listOf(IdentityProviderDetails),
        error: CommonErrors
      }).annotate(OpenApi.Description, "The organisation's identity providers, oldest first."),
      getByIdEndpoint("get", "/admin/identity-providers/:id", IdentityProviderDetails),
      updateEndpoint(
        "update",
        "/admin/identity-providers/:id",
        ById,
        UpdateIdentityProvider,
        IdentityProviderDetails
      ).annotate(
        OpenApi.Description,
        "Changes the fields given; the others, the client secret included, keep their value. The role map applies " +
          "from each person's next sign-in."
      ),
      deleteByIdEndpoint("delete", "/admin/identity-providers/:id", deletedOf("identity-provider")).annotate(
        OpenApi.Description,
        "Deletes the provider: nobody signs in with it again. Users it created stay."
      )
    )
) {}
