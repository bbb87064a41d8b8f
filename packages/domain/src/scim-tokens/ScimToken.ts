/**
 * SCIM tokens: the secrets an identity provider presents to the SCIM service provider to provision the organisation's
 * users and groups. Shown once at creation, kept only as a SHA-256 digest, revocable. One schema for the entity;
 * what a caller gives to create one is derived from it.
 */
import { Schema, Struct } from "effect"
import { Name } from "../shared/Rules.ts"

export const ScimTokenStatus = Schema.Literals(["active", "revoked"])
export type ScimTokenStatus = typeof ScimTokenStatus.Type

export class ScimToken extends Schema.Class<ScimToken>("ScimToken")({
  id: Schema.String,
  organisation_id: Schema.String,
  name: Name,
  /** The first and last four characters of the token: enough to tell tokens apart. */
  masked_token: Schema.String,
  status: ScimTokenStatus,
  created_at: Schema.String,
  created_by_user_id: Schema.NullOr(Schema.String),
  created_by_api_key_id: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String),
  last_updated_at: Schema.String
}) {}

/** A new token: its name. */
export const CreateScimToken = Schema.Struct(Struct.pick(ScimToken.fields, ["name"]))
export type CreateScimToken = typeof CreateScimToken.Type

/** The stored record: the token and the SHA-256 digest (hex) of its secret. */
export interface StoredScimToken {
  readonly token: ScimToken
  readonly digest: string
}

/** Recognisable prefix, so a leaked SCIM token is easy to spot by secret scanners. */
export const SCIM_TOKEN_PREFIX = "gwscim_"
