/**
 * Which provider key a call uses, and where that key may be sent.
 *
 * The rule: a stored provider key is only ever sent to the host stored with it, in the same record (the
 * virtual key's or config's `custom_host`, else the provider's base URL). A custom host named by the
 * call, or held by another record than the key, is used only with a provider key the call itself
 * supplies. Otherwise anyone allowed to make calls, or to create configs, could send a workspace's stored
 * key to a host of their choosing.
 */
import { Effect, Option, type Redacted } from "effect"
import { type ResolvedConfig, resolveInlineConfig } from "../credentials/Config.ts"
import { Configs } from "../credentials/Configs.ts"
import { Providers } from "../providers/Providers.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { knownProvider, ProviderRegistry } from "./Providers.ts"
import {
  type ConfigSelection,
  NoProviderSelected,
  ProviderKeyMissing,
  type ProviderKeyRecord,
  type ProviderSelection,
  StoredKeyElsewhere
} from "./ProviderSelection.ts"

type HostField = StoredKeyElsewhere["hostField"]

/** A custom host, with the selection field it came from: errors about the host name that field. */
export interface NamedHost {
  readonly url: string
  readonly param: "virtual_key" | HostField
  /** The config it belongs to, when it is a config's: its slug, or null for an inline config. */
  readonly configSlug?: string | null
}

/** A custom host not necessarily stored with the key: the call's, or a config's. */
interface OtherHost extends NamedHost {
  readonly param: HostField
}

/** A call's provider, its key, and the custom host the key goes to (undefined: the provider's base URL). */
export interface ProviderChoice {
  readonly provider: string
  readonly apiKey: Redacted.Redacted<string>
  readonly customHost: NamedHost | undefined
  readonly timeoutMs: number
}

type Credential =
  /** A key the call carries (`api_key`, or an inline config's): any checked host may get it. */
  | { readonly stored: false; readonly provider: string; readonly apiKey: Redacted.Redacted<string> }
  /** A key from a stored record: only the record's own host gets it. */
  | {
    readonly stored: true
    readonly provider: string
    readonly apiKey: Redacted.Redacted<string>
    readonly record: typeof ProviderKeyRecord.Type
    readonly ownHost: NamedHost | undefined
  }

export type ProviderChoiceError =
  | InvalidRequest
  | NoProviderSelected
  | ProviderKeyMissing
  | StoredKeyElsewhere
  | StoreError

export const makeProviderChoice = Effect.gen(function*() {
  const registry = yield* ProviderRegistry
  const providers = yield* Providers
  const configs = yield* Configs

  /**
   * `@slug` or a virtual key's slug (or id): the workspace's provider of that slug, a virtual key being a provider
   * paired with its own integration (credentials/VirtualKeys.ts). Refusals name `param`: where the call named it.
   */
  const fromVirtualKey = Effect.fnUntraced(
    function*(workspaceId: string, ref: string, param: "virtual_key" | "config") {
      const provider = yield* providers.resolveProvider(workspaceId, ref, param)
      if (Option.isNone(provider)) {
        return yield* InvalidRequest.of(`No provider or virtual key '${ref}' in this workspace.`, param)
      }
      const key = provider.value
      return {
        stored: true,
        provider: key.provider,
        apiKey: key.apiKey,
        record: { kind: key.kind, slug: key.slug },
        ownHost: key.customHost === null ? undefined : { url: key.customHost, param: "virtual_key" }
      } satisfies Credential
    }
  )

  /** The credential the selection names outside a config: a virtual key, else a provider with the call's key. */
  const fromSelection = Effect.fnUntraced(function*(workspaceId: string, selection: ProviderSelection) {
    if (selection.virtual_key !== undefined) {
      return yield* fromVirtualKey(workspaceId, selection.virtual_key, "virtual_key")
    }
    if (selection.provider === undefined) return undefined
    const provider = yield* knownProvider(registry, selection.provider, "provider")
    if (selection.api_key === undefined) return yield* new ProviderKeyMissing({ provider })
    return { stored: false, provider, apiKey: selection.api_key } satisfies Credential
  })

  const resolveConfig = (
    workspaceId: string,
    config: ConfigSelection
  ): Effect.Effect<ResolvedConfig, InvalidRequest | StoreError> => {
    if (config._tag === "StoredConfig") return configs.resolveConfig(workspaceId, config.slug)
    const resolved = resolveInlineConfig(config.config)
    return resolved instanceof InvalidRequest ? Effect.fail(resolved) : Effect.succeed(resolved)
  }

  return Effect.fnUntraced(function*(workspaceId: string, selection: ProviderSelection) {
    let timeoutMs = registry.timeoutMs
    let credential: Credential | undefined
    /** Custom hosts not stored together with the credential, by precedence: the call's, then the config's. */
    const hosts: Array<OtherHost> = []
    if (selection.custom_host !== undefined) hosts.push({ url: selection.custom_host, param: "custom_host" })

    if (selection.config !== undefined) {
      const config = yield* resolveConfig(workspaceId, selection.config)
      const configHost: OtherHost | undefined = config.target.custom_host === undefined
        ? undefined
        : { url: config.target.custom_host, param: "config", configSlug: config.slug ?? null }
      if (config.target.request_timeout !== undefined) timeoutMs = config.target.request_timeout
      if (config.target.virtual_key !== undefined) {
        credential = yield* fromVirtualKey(workspaceId, config.target.virtual_key, "config")
      } else if (config.target.provider !== undefined && config.apiKey !== undefined) {
        const provider = yield* knownProvider(registry, config.target.provider, "config")
        credential = config.slug === undefined
          ? { stored: false, provider, apiKey: config.apiKey }
          : {
            stored: true,
            provider,
            apiKey: config.apiKey,
            record: { kind: "config", slug: config.slug },
            ownHost: configHost
          }
      } else {
        credential = yield* fromSelection(workspaceId, selection)
      }
      const ownsConfigHost = credential?.stored === true && credential.ownHost === configHost
      if (configHost !== undefined && !ownsConfigHost) hosts.push(configHost)
    } else {
      credential = yield* fromSelection(workspaceId, selection)
    }
    if (credential === undefined) return yield* new NoProviderSelected()

    if (!credential.stored) {
      return { provider: credential.provider, apiKey: credential.apiKey, customHost: hosts[0], timeoutMs }
    }
    const other = hosts[0]
    if (other !== undefined) {
      return yield* new StoredKeyElsewhere({
        keyRecord: credential.record,
        hostField: other.param,
        hostConfigSlug: other.configSlug ?? null
      })
    }
    return {
      provider: credential.provider,
      apiKey: credential.apiKey,
      customHost: credential.ownHost,
      timeoutMs
    } satisfies ProviderChoice
  })
})
