import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { v1Group } from "../Common.ts"

export const ScopeCatalogue = Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(Schema.String) })

export class ScopesGroup extends v1Group(
  HttpApiGroup.make("scopes")
    .add(
      HttpApiEndpoint.get("list", "/scopes", { success: ScopeCatalogue, error: CommonErrors }).annotate(
        OpenApi.Description,
        "Every scope a key can carry."
      )
    )
) {}
