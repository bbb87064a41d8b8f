/**
 * Labels: named pointers a prompt moves between its versions (`production` → version 3), rendered with
 * `slug@label`. A label is a resource of a workspace, or of the organisation (then every workspace has it);
 * the three built-in labels exist in every organisation, with their names as ids, and never change. A
 * prompt's pointers name labels by name, which is unique among the labels a workspace has.
 */
import { Context, type Effect, type Option, Schema, Struct } from "effect"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { Description } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"

/** Labels every organisation has, which every new prompt points at its version 1. */
export const BUILT_IN_LABELS = ["production", "staging", "development"] as const

const LABEL_REQUIREMENT = "must be 1 to 64 letters, digits, '_' or '-', and not 'latest' or a number"

/** A label's name, as `slug@label` names it: so never `latest` (the newest version) nor a number (a version). */
export const LabelName = Schema.String.check(
  Schema.isPattern(/^[a-zA-Z0-9_-]{1,64}$/, { message: LABEL_REQUIREMENT }),
  Schema.makeFilter((name) => !/^(latest|\d+)$/.test(name), { message: LABEL_REQUIREMENT })
)

export const labelRequirement = (param: string) => `${param} ${LABEL_REQUIREMENT}.`

/** `#rrggbb`. */
export const ColorCode = Schema.String.check(
  Schema.isPattern(/^#[0-9a-fA-F]{6}$/, { message: "must be a colour as #rrggbb" })
)

export class Label extends Schema.Class<Label>("Label")({
  id: Schema.String,
  organisation_id: Schema.String,
  /** Null for a label of the whole organisation. */
  workspace_id: Schema.NullOr(Schema.String),
  name: LabelName,
  description: Schema.NullOr(Schema.String),
  color_code: Schema.NullOr(ColorCode),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** A label's own fields a request may give, each optional on an update. */
const labelFields = {
  ...Struct.pick(Label.fields, ["name"]),
  description: Schema.optionalKey(Description),
  color_code: Schema.optionalKey(ColorCode)
}

/** Where a new label goes: a workspace (by default the key's), or the whole organisation. */
export const CreateLabel = Schema.Struct({
  ...labelFields,
  workspace_id: Schema.optionalKey(Schema.String),
  organisation_id: Schema.optionalKey(Schema.String)
})
export type LabelInput = typeof CreateLabel.Type

/** A new name, description or colour; null clears the description or the colour. */
export const UpdateLabel = Schema.Struct({
  name: Schema.optionalKey(Label.fields.name),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  color_code: Schema.optionalKey(Label.fields.color_code)
})
export type LabelChange = typeof UpdateLabel.Type

export class LabelStore extends Context.Service<LabelStore, {
  /** `Conflict` when the name is taken at the label's level (in its workspace, or among organisation labels). */
  readonly insert: (label: Label) => Effect.Effect<void, Conflict | StoreError>
  /** Replaces the label (its organisation and workspace stay); `Conflict` as for insert; false when none. */
  readonly update: (label: Label) => Effect.Effect<boolean, Conflict | StoreError>
  readonly get: (id: string) => Effect.Effect<Option.Option<Label>, StoreError>
  /** The organisation's labels with this name, at every level. */
  readonly withName: (organisationId: string, name: string) => Effect.Effect<ReadonlyArray<Label>, StoreError>
  /**
   * The organisation's labels a workspace has (its own and the organisation's), or with no workspace all of
   * them, by creation; with `search`, only those whose name holds it, in any case.
   */
  readonly list: (
    organisationId: string,
    workspaceId: string | null,
    page: PageRequest,
    search?: string
  ) => Effect.Effect<Page<Label>, StoreError>
  readonly delete: (id: string) => Effect.Effect<boolean, StoreError>
}>()("@gateway-control/LabelStore") {}
