/**
 * A virtual key: a provider and its API key, stored in a workspace under a slug, optionally with the custom
 * host the key is sent to. The provider key is encrypted at rest and never read back.
 */
import { type Redacted, Schema } from "effect"
import { Name, Slug } from "../shared/Rules.ts"

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
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

export interface VirtualKeyInput {
  readonly name: string
  readonly slug?: string | undefined
  readonly provider: string
  readonly key: string
  readonly custom_host?: string | undefined
  readonly workspace_id?: string | undefined
}

/** What an update may change: the name, the provider key, and the custom host (null: back to the provider's). */
export interface VirtualKeyChange {
  readonly name?: string | undefined
  readonly key?: string | undefined
  readonly custom_host?: string | null | undefined
}

/** Credentials a call can use: a provider, its key, and where to send the call. */
export interface ResolvedVirtualKey {
  readonly slug: string
  readonly provider: string
  readonly apiKey: Redacted.Redacted<string>
  readonly customHost: string | null
}
