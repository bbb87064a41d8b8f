import { ColorCode, CreateLabel, Label, UpdateLabel } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import {
  ById,
  createEndpoint,
  deleteByIdEndpoint,
  deletedOf,
  getByIdEndpoint,
  PagingQuery,
  updateEndpoint,
  v1Group
} from "../Common.ts"

/**
 * A label as reads show it. Portkey declares `workspace_id`, `description` and `color_code` strings: absent
 * (an organisation label, no description, no colour) they are left out rather than sent as null.
 */
export const LabelDetails = Schema.Struct({
  ...Struct.omit(Label.fields, ["workspace_id", "description", "color_code"]),
  workspace_id: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  color_code: Schema.optionalKey(ColorCode),
  object: Schema.Literal("label")
})

export class LabelsGroup extends v1Group(
  HttpApiGroup.make("labels")
    .add(
      createEndpoint("create", "/labels", CreateLabel, LabelDetails).annotate(
        OpenApi.Description,
        "Creates a label of a workspace (workspace_id, by default the key's), or with organisation_id one every workspace has (admin keys)."
      ),
      HttpApiEndpoint.get("list", "/labels", {
        query: {
          workspace_id: Schema.optionalKey(Schema.String),
          search: Schema.optionalKey(Schema.String.annotate({ description: "Part of the name, any case." })),
          ...PagingQuery
        },
        success: Schema.Struct({
          object: Schema.Literal("list"),
          data: Schema.Array(LabelDetails),
          total: Schema.Int,
          has_more: Schema.Boolean
        }),
        error: CommonErrors
      }).annotate(
        OpenApi.Description,
        "The built-in labels, the organisation's, and the workspace's (workspace_id, by default the key's; an admin key naming none lists every workspace's)."
      ),
      getByIdEndpoint("get", "/labels/:id", LabelDetails),
      updateEndpoint("update", "/labels/:id", ById, UpdateLabel, LabelDetails).annotate(
        OpenApi.Description,
        "Renames a label (the prompts' pointers follow it) or changes its description or colour. Built-in labels never change."
      ),
      deleteByIdEndpoint("delete", "/labels/:id", deletedOf("label")).annotate(
        OpenApi.Description,
        "Deletes a label and every prompt's pointer to it. Built-in labels cannot be deleted."
      )
    )
) {}
