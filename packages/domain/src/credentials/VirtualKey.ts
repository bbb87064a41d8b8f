/**
 * A virtual key: a provider and its API key, stored in a workspace under a slug, optionally with the custom
 * host the key is sent to. The provider key is encrypted at rest and never read back.
 */
import { type Redacted, Schema, Struct } from "effect"
import { Description, Name, Slug } from "../shared/Rules.ts"
import { UsageLimits } from "./UsageLimits.ts"

/** The fields of a virtual key's creation body that hold the provider key: never stored or logged in clear. */
export const VIRTUAL_KEY_SECRET_FIELDS: ReadonlyArray<ReadonlyArray<string>> = [["key"]]

export class VirtualKey extends Schema.Class<VirtualKey>("VirtualKey")({
  id: Schema.String,
  organisation_id: Schema.String,
  workspace_id: Schema.String,
  name: Name,
  slug: Slug,
  provider: Schema.String,
  masked_key: Schema.String,
  custom_host: Schema.NullOr(Schema.String),
  /** A free-text note, as Portkey's clients keep one; null for none. */
  note: Schema.NullOr(Description),
  /** Portkey's usage limits (UsageLimits.ts): kept and returned, not counted against. */
  usage_limits: Schema.NullOr(UsageLimits),
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** A new credential's name, slug (made from the name when absent) and workspace (the caller's by default). */
export const credentialFields = {
  ...Struct.pick(VirtualKey.fields, ["name"]),
  slug: Schema.optionalKey(VirtualKey.fields.slug),
  workspace_id: Schema.optionalKey(Schema.String)
}

/** A virtual key as a caller asks for one, in the API's casing. */
export const CreateVirtualKey = Schema.Struct({
  ...credentialFields,
  ...Struct.pick(VirtualKey.fields, ["provider"]),
  key: Schema.String,
  custom_host: Schema.optionalKey(Schema.String),
  note: Schema.optionalKey(VirtualKey.fields.note),
  usage_limits: Schema.optionalKey(VirtualKey.fields.usage_limits)
})
export type VirtualKeyInput = typeof CreateVirtualKey.Type

/** A new name, provider key, or custom host (null: the provider's base URL again). */
export const UpdateVirtualKey = Schema.Struct({
  ...Struct.map(Struct.pick(CreateVirtualKey.fields, ["name", "key"]), Schema.optionalKey),
  ...Struct.pick(CreateVirtualKey.fields, ["note", "usage_limits"]),
  custom_host: Schema.optionalKey(Schema.NullOr(Schema.String))
})
export type VirtualKeyChange = typeof UpdateVirtualKey.Type

/** Credentials a call can use: a provider, its key, and where to send the call. */
export interface ResolvedVirtualKey {
  /** What the call named, in words: a provider, or a virtual key (a provider paired with its own integration). */
  readonly kind: "provider" | "virtual key"
  readonly slug: string
  readonly provider: string
  readonly apiKey: Redacted.Redacted<string>
  readonly customHost: string | null
}
