/**
 * SCIM 2.0 users (RFC 7643 §4.1) as this gateway keeps them: a user of the organisation (userName is their
 * email, name their name) with what SCIM adds, kept beside it: the identity provider's `externalId`, and
 * `active`. One schema for the entity; what an identity provider sends is decoded with `ScimUserInput`.
 */
import { Schema } from "effect"

export const SCIM_USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
export const SCIM_GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
export const SCIM_LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
export const SCIM_PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

/** What SCIM keeps of a user beyond the user itself. */
export class ScimIdentity extends Schema.Class<ScimIdentity>("ScimIdentity")({
  user_id: Schema.String,
  organisation_id: Schema.String,
  /** The identity provider's own id for the user. */
  external_id: Schema.NullOr(Schema.String),
  /** False once the identity provider deprovisioned the user: their keys were revoked then. */
  active: Schema.Boolean,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** Some identity providers send booleans as the strings "True" and "False" (Microsoft Entra ID in PATCH). */
export const ScimBoolean = Schema.Union([
  Schema.Boolean,
  Schema.Literals(["true", "false", "True", "False", "TRUE", "FALSE"])
])

/** A user as an identity provider sends it (POST, PUT, and the result of a PATCH); other attributes are ignored. */
export const ScimUserInput = Schema.Struct({
  userName: Schema.String,
  externalId: Schema.optionalKey(Schema.NullOr(Schema.String)),
  displayName: Schema.optionalKey(Schema.NullOr(Schema.String)),
  name: Schema.optionalKey(Schema.NullOr(Schema.Struct({
    formatted: Schema.optionalKey(Schema.NullOr(Schema.String)),
    givenName: Schema.optionalKey(Schema.NullOr(Schema.String)),
    familyName: Schema.optionalKey(Schema.NullOr(Schema.String))
  }))),
  active: Schema.optionalKey(ScimBoolean)
})
export type ScimUserInput = typeof ScimUserInput.Type

/** A SCIM resource as JSON: what the protocol reads, filters and patches. */
export type ScimResource = { readonly [key: string]: unknown }

/** A list request: a filter (RFC 7644 §3.4.2.2) and a page (§3.4.2.4, 1-based `startIndex`). */
export interface ScimQuery {
  readonly filter: string | undefined
  readonly startIndex: number
  readonly count: number
}

/** A page of resources, as a SCIM list response says it. */
export interface ScimPage {
  readonly totalResults: number
  readonly startIndex: number
  readonly resources: ReadonlyArray<ScimResource>
}
