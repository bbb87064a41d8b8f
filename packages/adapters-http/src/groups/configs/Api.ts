import { CreateConfig, GatewayConfig, UpdateConfig } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ById, byRef, createEndpoint, deletedOf, listEndpoint, v1Group } from "../Common.ts"

export class ConfigsGroup extends v1Group(
  HttpApiGroup.make("configs")
    .add(
      createEndpoint(
        "create",
        "/configs",
        CreateConfig,
        Schema.Struct(Struct.pick(GatewayConfig.fields, ["id", "slug"]))
      ),
      listEndpoint("list", "/configs", GatewayConfig),
      HttpApiEndpoint.get("get", "/configs/:id", byRef(ById, GatewayConfig)),
      HttpApiEndpoint.put("update", "/configs/:id", {
        ...byRef(ById, Schema.Struct({ ...GatewayConfig.fields, object: Schema.Literal("config") })),
        payload: UpdateConfig
      }),
      HttpApiEndpoint.delete("delete", "/configs/:id", byRef(ById, deletedOf("config")))
    )
) {}
