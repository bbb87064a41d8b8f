import { CreateVirtualKey, UpdateVirtualKey, UsageLimits, VirtualKey } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ById, byRef, createEndpoint, deletedOf, listEndpoint, v1Group } from "../Common.ts"

/**
 * A virtual key as our API and Portkey's `VirtualKeys` schema and SDK describe it: `ai_provider_name` and
 * `masked_api_key` are Portkey's names of `provider` and `masked_key`; `usage_limits` is absent when there are
 * none; `status` is always `active` (a deleted key is gone).
 */
export const VirtualKeyAnswer = Schema.Struct({
  ...VirtualKey.fields,
  usage_limits: Schema.optionalKey(UsageLimits),
  ai_provider_name: Schema.String,
  masked_api_key: Schema.String,
  status: Schema.Literal("active"),
  object: Schema.Literal("virtual-key")
})

export class VirtualKeysGroup extends v1Group(
  HttpApiGroup.make("virtualKeys")
    .add(
      createEndpoint(
        "create",
        "/virtual-keys",
        CreateVirtualKey,
        Schema.Struct({ ...Struct.pick(VirtualKey.fields, ["id", "slug"]), object: Schema.Literal("virtual-key") })
      ),
      listEndpoint("list", "/virtual-keys", VirtualKeyAnswer),
      HttpApiEndpoint.get("get", "/virtual-keys/:id", byRef(ById, VirtualKeyAnswer)),
      HttpApiEndpoint.put("update", "/virtual-keys/:id", {
        ...byRef(ById, VirtualKeyAnswer),
        payload: UpdateVirtualKey
      }).annotate(
        OpenApi.Description,
        "Changes the name, the provider key (stored encrypted) or the custom host. A new custom_host needs the key in the same request: a stored key only goes to the host it was stored with."
      ),
      HttpApiEndpoint.delete("delete", "/virtual-keys/:id", byRef(ById, deletedOf("virtual-key")))
    )
) {}
