/**
 * Which provider key a call uses, and where that key may be sent.
 *
 * The rule: a stored provider key is only ever sent to the host stored with it, in the same record (the
 * virtual key's or config's `custom_host`, else the provider's base URL). A custom host named by the
 * request, or held by another record than the key, is used only with a provider key the request itself
 * supplies. Otherwise anyone allowed to make calls, or to create configs, could send a workspace's stored
 * key to a host of their choosing.
 */
import { Effect, Redacted } from "effect"
import { VirtualKeys } from "../credentials/VirtualKeys.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { ProviderRegistry } from "./Providers.ts"

/** The provider-selecting headers of a call, as received. */
export interface ProviderHeaders {
  readonly virtualKey: string | undefined
  readonly provider: string | undefined
  readonly authorization: string | undefined
  readonly config: string | undefined
  readonly customHost: string | undefined
}

/** A custom host, with the header it came from and words for it in messages. */
export interface NamedHost {
  readonly url: string
  readonly param: string
  readonly what: string
}

/** A call's provider, its key, and the custom host the key goes to (undefined: the provider's base URL). */
export interface ProviderChoice {
  readonly provider: string
  readonly apiKey: Redacted.Redacted<string>
  readonly customHost: NamedHost | undefined
  readonly timeoutMs: number
}

type Credential =
  /** A key the request carries (Authorization, or an inline config's api_key): any checked host may get it. */
  | { readonly stored: false; readonly provider: string; readonly apiKey: Redacted.Redacted<string> }
  /** A key from a stored record: only the record's own host gets it. */
  | {
    readonly stored: true
    readonly provider: string
    readonly apiKey: Redacted.Redacted<string>
    readonly record: string
    readonly ownHost: NamedHost | undefined
  }

const HOW =
  "Choose the provider one of four ways: x-service-virtual-key: <slug>; x-service-provider: <provider> with " +
  "Authorization: Bearer <provider key>; x-service-config: <config slug or JSON>; or x-service-provider, " +
  "Authorization and x-service-custom-host: <base URL>."

const bearer = (authorization: string | undefined) => {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? undefined : match[1]
}

export const makeProviderChoice = Effect.gen(function*() {
  const registry = yield* ProviderRegistry
  const virtualKeys = yield* VirtualKeys

  const knownProvider = (provider: string, param: string) =>
    registry.baseUrls.has(provider)
      ? Effect.succeed(provider)
      : Effect.fail(InvalidRequest.of(
        `Unknown provider '${provider}'. Known providers: ${[...registry.baseUrls.keys()].join(", ")}.`,
        param
      ))

  const fromVirtualKey = Effect.fnUntraced(function*(workspaceId: string, slug: string) {
    const key = yield* virtualKeys.resolveVirtualKey(workspaceId, slug)
    const record = `virtual key '${key.slug}'`
    return {
      stored: true,
      provider: key.provider,
      apiKey: key.apiKey,
      record,
      ownHost: key.customHost === null
        ? undefined
        : { url: key.customHost, param: "x-service-virtual-key", what: `the custom_host of ${record}` }
    } satisfies Credential
  })

  const fromHeaders = Effect.fnUntraced(function*(workspaceId: string, headers: ProviderHeaders) {
    if (headers.provider?.startsWith("@")) return yield* fromVirtualKey(workspaceId, headers.provider.slice(1))
    if (headers.virtualKey !== undefined) return yield* fromVirtualKey(workspaceId, headers.virtualKey)
    if (headers.provider === undefined) return undefined
    const provider = yield* knownProvider(headers.provider, "x-service-provider")
    const apiKey = bearer(headers.authorization)
    if (apiKey === undefined) {
      return yield* InvalidRequest.of(
        "x-service-provider needs the provider key in 'Authorization: Bearer <key>'.",
        "authorization"
      )
    }
    return { stored: false, provider, apiKey: Redacted.make(apiKey) } satisfies Credential
  })

  return Effect.fnUntraced(function*(workspaceId: string, headers: ProviderHeaders) {
    let timeoutMs = registry.timeoutMs
    let credential: Credential | undefined
    /** Custom hosts not stored together with the credential, by precedence: the header, then the config. */
    const hosts: Array<NamedHost> = []
    if (headers.customHost !== undefined) {
      hosts.push({ url: headers.customHost, param: "x-service-custom-host", what: "x-service-custom-host" })
    }

    if (headers.config !== undefined) {
      const config = yield* virtualKeys.resolveConfig(workspaceId, headers.config)
      const record = config.slug === undefined ? "the inline config" : `config '${config.slug}'`
      const configHost = config.target.custom_host === undefined
        ? undefined
        : { url: config.target.custom_host, param: "x-service-config", what: `the custom_host of ${record}` }
      if (config.target.request_timeout !== undefined) timeoutMs = config.target.request_timeout
      if (config.target.virtual_key !== undefined) {
        credential = yield* fromVirtualKey(workspaceId, config.target.virtual_key)
      } else if (config.target.provider !== undefined && config.apiKey !== undefined) {
        const provider = yield* knownProvider(config.target.provider, "x-service-config")
        credential = config.slug === undefined
          ? { stored: false, provider, apiKey: config.apiKey }
          : { stored: true, provider, apiKey: config.apiKey, record, ownHost: configHost }
      } else {
        credential = yield* fromHeaders(workspaceId, headers)
      }
      const ownsConfigHost = credential?.stored === true && credential.ownHost === configHost
      if (configHost !== undefined && !ownsConfigHost) hosts.push(configHost)
    } else {
      credential = yield* fromHeaders(workspaceId, headers)
    }
    if (credential === undefined) return yield* InvalidRequest.of(`No provider for this call. ${HOW}`, null)

    if (!credential.stored) {
      return { provider: credential.provider, apiKey: credential.apiKey, customHost: hosts[0], timeoutMs }
    }
    const foreign = hosts[0]
    if (foreign !== undefined) {
      return yield* InvalidRequest.of(
        `The provider key of ${credential.record} is stored in the gateway, and a stored key is only sent to ` +
          "the host stored with it (its custom_host, else the provider's base URL); " +
          `${foreign.what} can only be used with a provider key given in the same request ` +
          "(x-service-provider with Authorization, or an inline config with provider and api_key).",
        foreign.param
      )
    }
    return { provider: credential.provider, apiKey: credential.apiKey, customHost: credential.ownHost, timeoutMs }
  })
})
