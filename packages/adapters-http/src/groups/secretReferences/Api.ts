import { CreateSecretReference, ManagerType, SecretReference, UpdateSecretReference } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
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

export const SecretReferenceDetails = Schema.Struct({
  ...SecretReference.fields,
  object: Schema.Literal("secret-reference")
})

/** What a list carries of each reference (Portkey's `SecretReferenceListItem`, with the rest of the record). */
export const SecretReferenceQuery = {
  manager_type: Schema.optionalKey(ManagerType),
  search: Schema.optionalKey(
    Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255)).annotate({
      description: "Part of the name, any case."
    })
  ),
  ...PagingQuery
}

export class SecretReferencesGroup extends v1Group(
  HttpApiGroup.make("secretReferences")
    .add(
      createEndpoint(
        "create",
        "/secret-references",
        CreateSecretReference,
        Schema.Struct({
          ...Struct.pick(SecretReference.fields, ["id", "slug"]),
          object: Schema.Literal("secret-reference")
        })
      ).annotate(
        OpenApi.Description,
        "Names a secret in the organisation's own secret manager (manager_type hashicorp_vault, aws_sm, azure_kv, " +
          "or file for an entry of MCP_SECRETS_FILE) and the login to fetch it (auth_config; its secret fields are " +
          "write-only and answered masked). The gateway fetches the value only when a record that names the " +
          "reference calls out, and never stores, logs or answers it. Admin keys of organisation owners and admins."
      ),
      HttpApiEndpoint.get("list", "/secret-references", {
        query: SecretReferenceQuery,
        success: listOf(SecretReferenceDetails),
        error: CommonErrors
      }).annotate(OpenApi.Description, "The organisation's secret references, oldest first."),
      getByIdEndpoint("get", "/secret-references/:id", SecretReferenceDetails).annotate(
        OpenApi.Description,
        "A secret reference by id or slug; its login's secret fields masked."
      ),
      updateEndpoint("update", "/secret-references/:id", ById, UpdateSecretReference, SecretReferenceDetails)
        .annotate(
          OpenApi.Description,
          "Changes the fields given. auth_config is merged into the stored login; a change of where the login " +
            "is sent (vault_addr, aws_endpoint, aws_sts_endpoint, azure_vault_url, azure_authority_host) must " +
            "give the login's secret fields again. allowed_workspaces replaces the list."
        ),
      deleteByIdEndpoint("delete", "/secret-references/:id", deletedOf("secret-reference")).annotate(
        OpenApi.Description,
        "Deletes the reference: records that name it can no longer fetch its secret."
      )
    )
) {}
