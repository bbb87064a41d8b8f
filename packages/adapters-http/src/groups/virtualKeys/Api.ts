import { CreateVirtualKey, UpdateVirtualKey, VirtualKey } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ById, byRef, createEndpoint, deletedOf, listEndpoint, v1Group } from "../Common.ts"

export class VirtualKeysGroup extends v1Group(
  HttpApiGroup.make("virtualKeys")
    .add(
      createEndpoint(
        "create",
        "/virtual-keys",
        CreateVirtualKey,
        Schema.Struct({ ...Struct.pick(VirtualKey.fields, ["id", "slug"]), object: Schema.Literal("virtual-key") })
      ),
      listEndpoint("list", "/virtual-keys", VirtualKey),
      HttpApiEndpoint.get("get", "/virtual-keys/:id", byRef(ById, VirtualKey)),
      HttpApiEndpoint.put("update", "/virtual-keys/:id", {
        ...byRef(ById, Schema.Struct({ ...VirtualKey.fields, object: Schema.Literal("virtual-key") })),
        payload: UpdateVirtualKey
      }).annotate(
        OpenApi.Description,
        "Changes the name, the provider key (stored encrypted) or the custom host. A new custom_host needs the key in the same request: a stored key only goes to the host it was stored with."
      ),
      HttpApiEndpoint.delete("delete", "/virtual-keys/:id", byRef(ById, deletedOf("virtual-key")))
    )
) {}
