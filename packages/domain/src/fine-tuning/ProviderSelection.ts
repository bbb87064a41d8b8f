/**
 * How a call chooses its provider and provider key, whatever carried the choice (the HTTP adapter reads it
 * from headers), and the refusals of a choice that cannot be used. Errors about a choice name the fields
 * below in `param` (`virtual_key`, `provider`, `api_key`, `config`, `config.custom_host`, `custom_host`);
 * an adapter maps them to the names its callers wrote.
 */
import { Schema } from "effect"

/** A config the call names: a stored one by slug, or one given with the call (parsed, not yet checked). */
export const ConfigSelection = Schema.Union([
  Schema.TaggedStruct("StoredConfig", { slug: Schema.String }),
  Schema.TaggedStruct("InlineConfig", { config: Schema.Unknown })
])
export type ConfigSelection = typeof ConfigSelection.Type

/**
 * The ways to choose, which combine: a config, then a virtual key, then a provider with the call's own
 * provider key. A custom host given with the call is used only with a provider key given with the call.
 */
export const ProviderSelection = Schema.Struct({
  /** A stored virtual key, by slug. */
  virtual_key: Schema.optionalKey(Schema.String),
  /** A provider by name, with `api_key`. */
  provider: Schema.optionalKey(Schema.String),
  /** A provider key the call itself supplies. */
  api_key: Schema.optionalKey(Schema.Redacted(Schema.String)),
  config: Schema.optionalKey(ConfigSelection),
  /** A base URL to send the call to instead of the provider's. */
  custom_host: Schema.optionalKey(Schema.String)
})
export type ProviderSelection = typeof ProviderSelection.Type

/** The call chose no provider at all. */
export class NoProviderSelected extends Schema.TaggedError<NoProviderSelected>()("NoProviderSelected", {}) {
  override get message() {
    return "No provider for this call: choose a virtual key, a provider with its provider key, or a config."
  }
}

/** The call names a provider (`provider`, or an inline config's) but gives no provider key for it. */
export class ProviderKeyMissing extends Schema.TaggedError<ProviderKeyMissing>()("ProviderKeyMissing", {
  provider: Schema.String
}) {
  override get message() {
    return `The provider '${this.provider}' needs the provider key (api_key) given with the call.`
  }
}

/** A stored record holding a provider key: a provider (its integration's key), a virtual key or a config, by slug. */
export const ProviderKeyRecord = Schema.Struct({
  kind: Schema.Literals(["provider", "virtual key", "config"]),
  slug: Schema.String
})

/**
 * A stored provider key would go to a host not stored with it: the call's `custom_host`, or the custom host
 * of a config that does not hold the key. A stored key only goes to its own record's host.
 */
export class StoredKeyElsewhere extends Schema.TaggedError<StoredKeyElsewhere>()("StoredKeyElsewhere", {
  keyRecord: ProviderKeyRecord,
  /** Where the other host comes from. */
  hostField: Schema.Literals(["custom_host", "config"]),
  /** When the host is a config's: that config's slug; null for a config given inline. */
  hostConfigSlug: Schema.NullOr(Schema.String)
}) {
  /** The record holding the key, in words: `virtual key 'main'`. */
  get keyHolder(): string {
    return `${this.keyRecord.kind} '${this.keyRecord.slug}'`
  }
  /** The config whose host it is, in words, when it is a config's. */
  get hostConfig(): string {
    return this.hostConfigSlug === null ? "the inline config" : `config '${this.hostConfigSlug}'`
  }
  override get message() {
    const host = this.hostField === "custom_host" ? "the call's custom_host" : `the custom_host of ${this.hostConfig}`
    return storedKeyRefusal(
      this.keyHolder,
      host,
      "a provider with its api_key, or a config given with the call that has provider and api_key"
    )
  }
}

/** The refusal's words, with the names the caller knows for the host and for a key given with the call. */
export const storedKeyRefusal = (keyHolder: string, host: string, callKey: string) =>
  `The provider key of ${keyHolder} is stored in the gateway, and a stored key is only sent to the host ` +
  "stored with it (its custom_host, else the provider's base URL); " +
  `${host} can only be used with a provider key given in the same request (${callKey}).`
