import {
  CreatePartial,
  CreatePrompt,
  JsonObject,
  Label,
  Partial,
  PartialVersion,
  Prompt,
  PromptLabel,
  PromptVersion,
  UpdatePartial,
  UpdatePrompt
} from "@gateway-control/domain"
import { Schema, Struct } from "effect"
import type { HttpRouter } from "effect/http"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { CommonErrors } from "../../ApiErrors.ts"
import { byRef, createEndpoint, deletedOf, listOf, updateEndpoint, v1Group, WorkspaceListQuery } from "../Common.ts"

const VersionRef = Schema.Struct({ version: PromptVersion.fields.version.check(Schema.isGreaterThanOrEqualTo(1)) })
const PromptRef = { promptId: Schema.String }
const PartialRef = { partialId: Schema.String }
const VersionOfPrompt = { ...PromptRef, versionId: Schema.String }

/** A version as answers show it: `virtual_key` left out when it has none (Portkey declares a string). */
const PromptVersionFields = {
  ...Struct.omit(PromptVersion.fields, ["virtual_key"]),
  virtual_key: Schema.optionalKey(Schema.String)
}

/** A prompt's version, with the names of the labels pointing at it; Portkey names a version's object `prompt`. */
export const PromptVersionDetails = Schema.Struct({
  ...PromptVersionFields,
  object: Schema.Literal("prompt"),
  labels: Schema.Array(Label.fields.name)
})

export const SetVersionLabel = Schema.Struct({ label_id: Label.fields.id })

/**
 * A partial's version: ours, and Portkey's names beside them (`prompt_partial_id`, `prompt_partial_version_id`,
 * `description` when there is one, `prompt_version_status`; `object: "partial"`). `version` stays our number where
 * Portkey's document declares a string (README): its own `makeDefault` takes the number.
 */
export const PartialVersionDetails = Schema.Struct({
  ...PartialVersion.fields,
  prompt_partial_id: PartialVersion.fields.partial_id,
  prompt_partial_version_id: PartialVersion.fields.id,
  description: Schema.optionalKey(Schema.String),
  prompt_version_status: Schema.Literal("active"),
  object: Schema.Literal("partial")
})

/** The answer to a new version of a prompt or partial. */
export const VersionCreated = Schema.Struct({
  ...Struct.pick(Prompt.fields, ["id", "slug"]),
  version_id: PromptVersion.fields.id,
  ...Struct.pick(PromptVersion.fields, ["version"])
})

/** The answer to a prompt's update: the new version (else the newest), and the prompt's name and collection. */
export const PromptUpdated = Schema.Struct({
  ...VersionCreated.fields,
  ...Struct.pick(Prompt.fields, ["name", "collection_id"]),
  /** Portkey's name of `version_id` here. */
  prompt_version_id: PromptVersion.fields.id
})

export const PromptDetails = Schema.Struct({
  ...Prompt.fields,
  object: Schema.Literal("prompt"),
  versions: Schema.Array(Schema.Struct(PromptVersionFields)),
  labels: Schema.Array(PromptLabel)
})

export const PartialDetails = Schema.Struct({
  ...Partial.fields,
  object: Schema.Literal("prompt-partial"),
  ...Struct.pick(PartialVersion.fields, ["string"]),
  version_id: PartialVersion.fields.id
})

/** A partial after a change: its fields, and its published version (the new one, when a template was given). */
export const PartialChanged = Schema.Struct({
  ...Partial.fields,
  object: Schema.Literal("prompt-partial"),
  version_id: PartialVersion.fields.id,
  ...Struct.pick(PartialVersion.fields, ["version"])
})

export const RenderResponse = Schema.Struct({ success: Schema.Literal(true), data: JsonObject })

/** The query of prompt and partial lists: a workspace's, or one collection's (its id or slug). */
const CollectionListQuery = {
  ...WorkspaceListQuery,
  collection_id: Schema.optionalKey(
    Schema.String.annotate({ description: "Only this collection's (its id or slug); its workspace is the list's." })
  )
}

const collectionListEndpoint = <
  const Name extends string,
  const Path extends HttpRouter.PathInput,
  S extends Schema.Top
>(
  name: Name,
  path: Path,
  item: S
) => HttpApiEndpoint.get(name, path, { query: CollectionListQuery, success: listOf(item), error: CommonErrors })

export class PromptsGroup extends v1Group(
  HttpApiGroup.make("prompts")
    .add(
      createEndpoint("createPartial", "/prompts/partials", CreatePartial, VersionCreated),
      HttpApiEndpoint.put("updatePartial", "/prompts/partials/:partialId", {
        ...byRef(PartialRef, PartialChanged),
        payload: UpdatePartial
      })
        .annotate(
          OpenApi.Description,
          "A new string adds a version to the partial and publishes it; name, description and status change the partial itself."
        ),
      HttpApiEndpoint.put("publishPartial", "/prompts/partials/:partialId/makeDefault", {
        ...byRef(PartialRef, PartialChanged),
        payload: VersionRef
      }),
      HttpApiEndpoint.get("getPartial", "/prompts/partials/:partialId", byRef(PartialRef, PartialDetails)),
      HttpApiEndpoint.get(
        "listPartialVersions",
        "/prompts/partials/:partialId/versions",
        byRef(PartialRef, listOf(PartialVersionDetails))
      ),
      HttpApiEndpoint.delete(
        "deletePartial",
        "/prompts/partials/:partialId",
        byRef(PartialRef, deletedOf("prompt-partial"))
      ),
      collectionListEndpoint("listPartials", "/prompts/partials", Partial),
      createEndpoint(
        "create",
        "/prompts",
        CreatePrompt,
        Schema.Struct({ ...VersionCreated.fields, object: Schema.Literal("prompt") })
      ),
      updateEndpoint("update", "/prompts/:promptId", PromptRef, UpdatePrompt, PromptUpdated).annotate(
        OpenApi.Description,
        "A version field creates a new immutable version (it does not publish it), taking what it leaves out from the newest; name and collection_id (a collection of the prompt's workspace) change the prompt itself."
      ),
      updateEndpoint(
        "makeDefault",
        "/prompts/:promptId/makeDefault",
        PromptRef,
        VersionRef,
        Schema.Struct(Struct.pick(Prompt.fields, ["id", "published_version"]))
      ),
      updateEndpoint(
        "setLabel",
        "/prompts/:promptId/labels/:label",
        { ...PromptRef, label: Schema.String },
        VersionRef,
        PromptLabel
      ),
      HttpApiEndpoint.get("listVersions", "/prompts/:promptId/versions", {
        params: PromptRef,
        success: listOf(PromptVersionDetails),
        error: CommonErrors
      }),
      HttpApiEndpoint.get("getVersion", "/prompts/:promptId/versions/:versionId", {
        params: VersionOfPrompt,
        success: PromptVersionDetails,
        error: CommonErrors
      }).annotate(OpenApi.Description, "`versionId` is the version's id or its number."),
      updateEndpoint(
        "setVersionLabel",
        "/prompts/:promptId/versions/:versionId",
        VersionOfPrompt,
        SetVersionLabel,
        PromptVersionDetails
      ).annotate(
        OpenApi.Description,
        "Points the label `label_id` names (one the prompt's workspace has) at this version. `versionId` is the version's id or its number."
      ),
      HttpApiEndpoint.get("get", "/prompts/:promptId", byRef(PromptRef, PromptDetails)),
      HttpApiEndpoint.get("list", "/prompts", {
        query: {
          ...CollectionListQuery,
          search: Schema.optionalKey(Schema.String.annotate({ description: "Part of the name or slug, any case." }))
        },
        success: listOf(Prompt),
        error: CommonErrors
      }),
      HttpApiEndpoint.delete("delete", "/prompts/:promptId", {
        params: PromptRef,
        success: deletedOf("prompt"),
        error: CommonErrors
      })
    )
) {}

/**
 * Rendering, a group of its own because it is served by a lean route of the HTTP adapter (RenderRoute.ts)
 * rather than by HttpApi: this definition documents it and types clients.
 */
export class PromptRenderGroup extends v1Group(
  HttpApiGroup.make("promptRendering")
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
        "Renders a saved prompt into a chat completion or completion request body. `promptId` is the prompt's id or slug, optionally with @N, @latest or @label. Headers: x-service-missing-variables (the variables the template names that the request lacks, comma-separated, each percent-encoded as UTF-8; the first 100, in at most 4096 characters), x-service-missing-variables-omitted (how many more there were), x-service-deprecated-fields, x-service-snapshot-age (while the store is unreachable, rendered from this process's snapshot: how old, in seconds, its store reads are)."
      )
    )
) {}
