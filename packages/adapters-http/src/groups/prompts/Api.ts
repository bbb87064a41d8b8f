import { JsonObject, Partial, PartialVersion, Prompt, PromptLabel, PromptVersion } from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { RequestInputRules } from "../../InputRules.ts"
import { ApiKeyAuth } from "../../Security.ts"
import { created, deletedOf, Description, listOf, WorkspaceListQuery } from "../Common.ts"

/** What a new version may say about itself. */
const versionFields = { version_description: Schema.optionalKey(Description) }

/** Where a new prompt or partial goes, and under which slug (made from the name when absent). */
const placementFields = {
  slug: Schema.optionalKey(Prompt.fields.slug),
  workspace_id: Schema.optionalKey(Schema.String)
}

const promptFields = {
  ...Struct.pick(Prompt.fields, ["name"]),
  ...Struct.pick(PromptVersion.fields, ["string"]),
  ...placementFields,
  ...Struct.map(
    Struct.pick(PromptVersion.fields, ["parameters", "type", "is_raw_template", "template_metadata"]),
    Schema.optionalKey
  ),
  model: Schema.optionalKey(Schema.String),
  ...versionFields
}

export const CreatePrompt = Schema.Struct(promptFields)
export const UpdatePrompt = Schema.Struct({
  ...promptFields,
  ...Struct.map(Struct.pick(promptFields, ["name", "string"]), Schema.optionalKey)
})

export const CreatePartial = Schema.Struct({
  ...Struct.pick(Partial.fields, ["name"]),
  ...Struct.pick(PartialVersion.fields, ["string"]),
  ...placementFields,
  ...versionFields
})
export const UpdatePartial = Schema.Struct({ ...Struct.pick(PartialVersion.fields, ["string"]), ...versionFields })

const VersionRef = Schema.Struct({ version: PromptVersion.fields.version.check(Schema.isGreaterThanOrEqualTo(1)) })
const PromptRef = { promptId: Schema.String }
const PartialRef = { partialId: Schema.String }

/** The answer to a new version of a prompt or partial. */
export const VersionCreated = Schema.Struct({
  ...Struct.pick(Prompt.fields, ["id", "slug"]),
  version_id: PromptVersion.fields.id,
  ...Struct.pick(PromptVersion.fields, ["version"])
})

export const PromptDetails = Schema.Struct({
  ...Prompt.fields,
  object: Schema.Literal("prompt"),
  versions: Schema.Array(PromptVersion),
  labels: Schema.Array(PromptLabel)
})

export const PartialDetails = Schema.Struct({
  ...Partial.fields,
  object: Schema.Literal("prompt-partial"),
  ...Struct.pick(PartialVersion.fields, ["string"]),
  version_id: PartialVersion.fields.id
})

export const RenderResponse = Schema.Struct({ success: Schema.Literal(true), data: JsonObject })

export class PromptsGroup extends HttpApiGroup.make("prompts")
  .add(
    HttpApiEndpoint.post("createPartial", "/prompts/partials", {
      payload: CreatePartial,
      success: created(VersionCreated),
      error: CommonErrors
    }),
    HttpApiEndpoint.put("updatePartial", "/prompts/partials/:partialId", {
      params: PartialRef,
      payload: UpdatePartial,
      success: VersionCreated,
      error: CommonErrors
    }).annotate(OpenApi.Description, "Adds a version to the partial and publishes it."),
    HttpApiEndpoint.get("getPartial", "/prompts/partials/:partialId", {
      params: PartialRef,
      success: PartialDetails,
      error: CommonErrors
    }),
    HttpApiEndpoint.get("listPartials", "/prompts/partials", {
      query: WorkspaceListQuery,
      success: listOf(Partial),
      error: CommonErrors
    }),
    HttpApiEndpoint.post("create", "/prompts", {
      payload: CreatePrompt,
      success: created(Schema.Struct({ ...VersionCreated.fields, object: Schema.Literal("prompt") })),
      error: CommonErrors
    }),
    HttpApiEndpoint.put("update", "/prompts/:promptId", {
      params: PromptRef,
      payload: UpdatePrompt,
      success: VersionCreated,
      error: CommonErrors
    }).annotate(OpenApi.Description, "Creates a new immutable version; it does not publish it."),
    HttpApiEndpoint.put("makeDefault", "/prompts/:promptId/makeDefault", {
      params: PromptRef,
      payload: VersionRef,
      success: Schema.Struct(Struct.pick(Prompt.fields, ["id", "published_version"])),
      error: CommonErrors
    }),
    HttpApiEndpoint.put("setLabel", "/prompts/:promptId/labels/:label", {
      params: { ...PromptRef, label: Schema.String },
      payload: VersionRef,
      success: PromptLabel,
      error: CommonErrors
    }),
    HttpApiEndpoint.get("get", "/prompts/:promptId", {
      params: PromptRef,
      success: PromptDetails,
      error: CommonErrors
    }),
    HttpApiEndpoint.get("list", "/prompts", {
      query: WorkspaceListQuery,
      success: listOf(Prompt),
      error: CommonErrors
    }),
    HttpApiEndpoint.delete("delete", "/prompts/:promptId", {
      params: PromptRef,
      success: deletedOf("prompt"),
      error: CommonErrors
    })
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

/**
 * Rendering, a group of its own because it is served by a lean route of the HTTP adapter (RenderRoute.ts)
 * rather than by HttpApi: this definition documents it and types clients.
 */
export class PromptRenderGroup extends HttpApiGroup.make("promptRendering")
  .add(
    HttpApiEndpoint.post("render", "/prompts/:promptId/render", {
      params: PromptRef,
      payload: JsonObject.annotate({
        description:
          "variables (object, required), stream (boolean), and any chat-completion or completion field at the root."
      }),
      success: RenderResponse,
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "Renders a saved prompt into a chat completion or completion request body. `promptId` is the prompt's id or slug, optionally with @N, @latest or @label. Headers: x-service-missing-variables, x-service-deprecated-fields."
    )
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}
