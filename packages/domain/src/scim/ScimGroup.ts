/**
 * SCIM 2.0 groups (RFC 7643 §4.2) as this gateway keeps them: a named set of the organisation's users. A group
 * grants nothing by itself: its name (or the identity provider's id for it, `externalId`) is looked up in the
 * organisation's role maps, the same maps OIDC sign-in applies to a person's groups (identity-providers/), and
 * its members get the roles those maps name. One schema for the entity; what an identity provider sends is
 * decoded with `ScimGroupInput`.
 */
import { Schema } from "effect"

export class ScimGroup extends Schema.Class<ScimGroup>("ScimGroup")({
  id: Schema.String,
  organisation_id: Schema.String,
  /** The group's name: unique in the organisation, compared without case. */
  display_name: Schema.String,
  /** The identity provider's own id for the group. */
  external_id: Schema.NullOr(Schema.String),
  /** The ids of the users in the group, each once. */
  member_ids: Schema.Array(Schema.String),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** A member as an identity provider names one: the user's id in `value`; `display`, `$ref` and `type` ignored. */
export const ScimMemberInput = Schema.Struct({ value: Schema.String })

/** A group as an identity provider sends it (POST, PUT, and the result of a PATCH); other attributes are ignored. */
export const ScimGroupInput = Schema.Struct({
  displayName: Schema.String,
  externalId: Schema.optionalKey(Schema.NullOr(Schema.String)),
  members: Schema.optionalKey(Schema.NullOr(Schema.Array(ScimMemberInput)))
})
export type ScimGroupInput = typeof ScimGroupInput.Type

/** The most members a group may have here. */
export const MAX_GROUP_MEMBERS = 10_000
