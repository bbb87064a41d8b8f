/** A SCIM request the protocol refuses (RFC 7644 §3.12): a malformed filter, patch or resource. Nothing changed. */
import { Schema } from "effect"

export const ScimType = Schema.Literals([
  "invalidFilter",
  "tooMany",
  "uniqueness",
  "mutability",
  "invalidSyntax",
  "invalidPath",
  "noTarget",
  "invalidValue",
  "invalidVers",
  "sensitive"
])
export type ScimType = typeof ScimType.Type

export class ScimInvalid extends Schema.TaggedError<ScimInvalid>()("ScimInvalid", {
  scimType: ScimType,
  detail: Schema.String
}) {
  static readonly of = (scimType: ScimType, detail: string) => new ScimInvalid({ scimType, detail })
}
