import { ApiKey } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { v1Group } from "../Common.ts"

/**
 * The calling key as far as deciding what to offer needs: its kind, where it reaches, and its own scopes. A
 * person signed in has no key (`id` null) and acts as the kind of key their role fits (sessions/Sessions.ts).
 */
export const CallingKey = Schema.Struct({
  ...Struct.pick(ApiKey.fields, ["type", "organisation_id", "workspace_id", "user_id", "scopes"]),
  id: Schema.NullOr(ApiKey.fields.id)
})

export const ScopeCatalogue = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(Schema.String),
  key: CallingKey,
  /**
   * The actions the caller may perform where it stands (its workspace, or its organisation), as the policy
   * decides them: for a client to offer only what would not be refused. Each call is still authorized itself.
   */
  actions: Schema.Array(Schema.String)
})

export class ScopesGroup extends v1Group(
  HttpApiGroup.make("scopes")
    .add(
      HttpApiEndpoint.get("list", "/scopes", { success: ScopeCatalogue, error: CommonErrors }).annotate(
        OpenApi.Description,
        "Every scope a key can carry (`data`), the calling key with its own scopes (`key`), and the actions the " +
          "policy allows it where it stands (`actions`)."
      )
    )
) {}
