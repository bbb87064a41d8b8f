import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { RequestInputRules } from "../../InputRules.ts"
import { ApiKeyAuth } from "../../Security.ts"

export const ScopeCatalogue = Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(Schema.String) })

export class ScopesGroup extends HttpApiGroup.make("scopes")
  .add(
    HttpApiEndpoint.get("list", "/scopes", { success: ScopeCatalogue, error: CommonErrors }).annotate(
      OpenApi.Description,
      "Every scope a key can carry."
    )
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}
