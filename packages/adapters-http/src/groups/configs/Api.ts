import { ConfigVersion, CreateConfig, GatewayConfig, UpdateConfig } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ById, byRef, createEndpoint, deletedOf, listEndpoint, listOf, v1Group } from "../Common.ts"

/** A version of a config as Portkey lists them: the config's fields, the version's body serialized. */
export const ConfigVersionDetails = Schema.Struct({
  ...Struct.pick(GatewayConfig.fields, ["id", "organisation_id", "workspace_id", "slug", "is_default", "status"]),
  ...Struct.pick(ConfigVersion.fields, ["name", "version", "created_at"]),
  last_updated_at: GatewayConfig.fields.last_updated_at,
  config: Schema.String.annotate({ description: "The version's config, serialized as JSON (never its api_key)." }),
  format: Schema.Literal("json"),
  version_id: ConfigVersion.fields.id,
  object: Schema.Literal("config")
})

/**
 * A config as reads show it: ours, with the organisation also under the name Portkey's Node SDK declares for
 * configs (`organization_id`; ours and the rest of Portkey's API spell it `organisation_id`).
 */
export const ConfigDetails = Schema.Struct({
  ...GatewayConfig.fields,
  organization_id: GatewayConfig.fields.organisation_id
})

export class ConfigsGroup extends v1Group(
  HttpApiGroup.make("configs")
    .add(
      createEndpoint(
        "create",
        "/configs",
        CreateConfig,
        Schema.Struct({
          ...Struct.pick(GatewayConfig.fields, ["id", "slug", "version_id"]),
          object: Schema.Literal("config")
        })
      ),
      listEndpoint("list", "/configs", ConfigDetails),
      HttpApiEndpoint.get("get", "/configs/:id", byRef(ById, ConfigDetails)),
      HttpApiEndpoint.put("update", "/configs/:id", {
        ...byRef(ById, Schema.Struct({ ...ConfigDetails.fields, object: Schema.Literal("config") })),
        payload: UpdateConfig
      }),
      HttpApiEndpoint.delete("delete", "/configs/:id", byRef(ById, deletedOf("config"))),
      HttpApiEndpoint.get("listVersions", "/configs/:id/versions", byRef(ById, listOf(ConfigVersionDetails)))
        .annotate(
          OpenApi.Description,
          "The config's versions, oldest first: one per create and update, with the config then as serialized JSON (Portkey's shape)."
        )
    )
) {}
