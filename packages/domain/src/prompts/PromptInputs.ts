/**
 * What a caller gives to create or change a prompt or a partial: one schema per use case, derived from the
 * entities (Prompt.ts), in the API's casing. The HTTP API takes them as its payloads and the use cases
 * (PromptTemplates.ts, PromptPartials.ts) as their inputs.
 */
import { Schema, Struct } from "effect"
import { Description, Slug } from "../shared/Rules.ts"
import { JsonObject, Partial, PartialVersion, Prompt, PromptVersion } from "./Prompt.ts"

/** What a new version may say about itself. */
const versionFields = { version_description: Schema.optionalKey(Description) }

/** Where a new prompt or partial goes, and under which slug (made from the name when absent). */
const placementFields = {
  slug: Schema.optionalKey(Prompt.fields.slug),
  workspace_id: Schema.optionalKey(Schema.String)
}

/** The collection a new prompt or partial goes to (id or slug); its workspace's default one when absent. */
const collectionField = {
  collection_id: Schema.optionalKey(Prompt.fields.collection_id.annotate({
    description: "The collection's id or slug; it decides the workspace. Default: the workspace's default collection."
  }))
}

const VirtualKeyRef = Slug.annotate({ description: "The slug of a virtual key; stored and returned." })

const promptFields = {
  ...Struct.pick(Prompt.fields, ["name"]),
  ...Struct.pick(PromptVersion.fields, ["string"]),
  ...placementFields,
  ...Struct.map(
    Struct.pick(PromptVersion.fields, ["parameters", "type", "is_raw_template", "template_metadata"]),
    Schema.optionalKey
  ),
  model: Schema.optionalKey(Schema.String),
  /** Portkey's version field: the slug of the virtual key the version's completions go through (stored, returned). */
  virtual_key: Schema.optionalKey(VirtualKeyRef),
  /**
   * Portkey's version fields beside `parameters`: they become the saved parameters' `functions`, `tools` and
   * `tool_choice` (checked by the request rules, rendered into the body); one given twice with two values is
   * refused by name.
   */
  functions: Schema.optionalKey(Schema.Array(JsonObject)),
  tools: Schema.optionalKey(Schema.Array(JsonObject)),
  tool_choice: Schema.optionalKey(Schema.Union([Schema.String, JsonObject])),
  ...versionFields
}

export const CreatePrompt = Schema.Struct({ ...promptFields, ...collectionField })
export const UpdatePrompt = Schema.Struct({
  ...promptFields,
  ...Struct.map(Struct.pick(promptFields, ["name", "string"]), Schema.optionalKey),
  /** Moves the prompt to another collection of its workspace (id or slug). */
  ...collectionField,
  /** `null` leaves the new version without a virtual key (absent: the newest version's stays). */
  virtual_key: Schema.optionalKey(Schema.NullOr(VirtualKeyRef)),
  /** Portkey's integer form (`0`, `1`) is taken too. */
  is_raw_template: Schema.optionalKey(Schema.Union([Schema.Boolean, Schema.Literals([0, 1])])),
  /** Portkey's name of `template_metadata` on update; both given must be equal. */
  prompt_metadata: Schema.optionalKey(JsonObject),
  /**
   * Portkey's partial update: every update here takes what it leaves out from the newest version, as
   * `patch: true` asks; `false` (Portkey's strict form) is refused by name.
   */
  patch: Schema.optionalKey(Schema.Boolean)
})

export const CreatePartial = Schema.Struct({
  ...Struct.pick(Partial.fields, ["name"]),
  ...Struct.pick(PartialVersion.fields, ["string"]),
  ...placementFields,
  ...collectionField,
  ...versionFields
})
/** A new template (a new version, published), and the partial's own fields; each optional. */
export const UpdatePartial = Schema.Struct({
  ...Struct.map(Struct.pick(PartialVersion.fields, ["string"]), Schema.optionalKey),
  ...versionFields,
  /** Moves the partial to another collection of its workspace (id or slug). */
  ...collectionField,
  ...Struct.map(Struct.pick(Partial.fields, ["name", "status"]), Schema.optionalKey),
  description: Schema.optionalKey(Schema.NullOr(Description))
})

/** An unsaved edit of a version, tried without saving it: its template and model fields, each optional. */
export const PromptDraft = Schema.Struct({
  ...Struct.map(
    Struct.pick(PromptVersion.fields, ["string", "parameters", "type", "is_raw_template"]),
    Schema.optionalKey
  ),
  model: Schema.optionalKey(Schema.String)
})
export type PromptDraft = typeof PromptDraft.Type

/** A prompt's fields as a create or an update gives them (an update's are all optional). */
export type PromptInput = typeof UpdatePrompt.Type
export type PartialInput = typeof CreatePartial.Type
export type PartialChange = typeof UpdatePartial.Type
