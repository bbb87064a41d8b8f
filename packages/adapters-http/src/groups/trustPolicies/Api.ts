import { CreateTrustPolicy, TrustPolicy, UpdateTrustPolicy } from "@gateway-control/domain"
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

export const TrustPolicyDetails = Schema.Struct({ ...TrustPolicy.fields, object: Schema.Literal("trust-policy") })

export class TrustPoliciesGroup extends v1Group(
  HttpApiGroup.make("trustPolicies")
    .add(
      createEndpoint("create", "/admin/trust-policies", CreateTrustPolicy, TrustPolicyDetails).annotate(
        OpenApi.Description,
        "Trusts tokens of an issuer: a workload whose token matches (audience, subject or subject_pattern, claims) " +
          "exchanges it at POST /v1/oauth/token for a credential of workspace_id with these scopes (never more " +
          "than the calling key holds), rate limits and lifetime (max_ttl_seconds, at most 3600). Admin keys of " +
          "organisation owners and admins."
      ),
      HttpApiEndpoint.get("list", "/admin/trust-policies", {
        query: PagingQuery,
        success: listOf(TrustPolicyDetails),
        error: CommonErrors
      }).annotate(OpenApi.Description, "The organisation's trust policies, oldest first."),
      getByIdEndpoint("get", "/admin/trust-policies/:id", TrustPolicyDetails),
      updateEndpoint("update", "/admin/trust-policies/:id", ById, UpdateTrustPolicy, TrustPolicyDetails).annotate(
        OpenApi.Description,
        "Replaces the policy with the body (the same fields as creating one). Credentials already issued keep " +
          "what they got until they expire."
      ),
      deleteByIdEndpoint("delete", "/admin/trust-policies/:id", deletedOf("trust-policy")).annotate(
        OpenApi.Description,
        "Deletes the policy: no token is exchanged under it again; credentials already issued expire on their own " +
          "(revoke them at DELETE /v1/api-keys/{id} to end them at once)."
      )
    )
) {}
