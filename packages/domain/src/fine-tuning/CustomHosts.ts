/**
 * Custom hosts: base URLs that a call or a stored record names instead of the provider's own. The rule
 * against server-side request forgery lives here; the tables of special-purpose addresses live in an
 * adapter behind `AddressRanges`, and the pinned connection in the adapters behind `FineTuningUpstream` and
 * `McpConnections`.
 */
import { Effect } from "effect"
import { InvalidRequest } from "../shared/Errors.ts"
import { HTTP_URL_PROBLEMS, parseHttpUrl } from "../shared/HttpUrl.ts"
import { AddressRanges, HostResolver, ProviderRegistry } from "./Providers.ts"

/**
 * The shape every custom host must have, stored or given with a call: a base URL (`BaseUrl`, HttpUrl.ts).
 * `param` names the field it came from. Pure.
 */
export const parseCustomHost = (host: string, param: string): URL | InvalidRequest => {
  const url = parseHttpUrl(host, "base url")
  return url instanceof URL ? url : InvalidRequest.of(`The custom host ${HTTP_URL_PROBLEMS[url]}.`, param)
}

/** Where a provider call goes, and the addresses its connection is pinned to. */
export interface Destination {
  readonly baseUrl: string
  readonly pinnedAddresses: ReadonlyArray<string> | undefined
}

/** Where a connection is allowed to go: undefined for a trusted host, else the checked addresses to pin it to. */
export type PinnedAddresses = ReadonlyArray<string> | undefined

/**
 * The address guard every outbound connection to a host a caller chose goes through: custom hosts of provider
 * calls and MCP servers' URLs. The name is resolved once, every answer must be a public unicast address,
 * and the connection is then pinned to those answers: a DNS answer that changes between the check and the
 * connection cannot lead into the gateway's own network. Hosts the operator lists in TRUSTED_CUSTOM_HOSTS
 * (`host` or `host:port`) are not checked and connect wherever DNS says. `what` names the URL in refusals
 * ("The custom host"), `param` the field it came from.
 */
export const makeAddressGuard = Effect.gen(function*() {
  const registry = yield* ProviderRegistry
  const resolver = yield* HostResolver
  const ranges = yield* AddressRanges

  return Effect.fnUntraced(function*(url: URL, what: string, param: string) {
    if (registry.trustedHosts.has(url.hostname) || registry.trustedHosts.has(url.host)) {
      return undefined satisfies PinnedAddresses
    }
    const addresses = yield* resolver.resolve(url.hostname.replace(/^\[|\]$/g, ""))
    if (addresses.length === 0) {
      return yield* InvalidRequest.of(`${what} '${url.hostname}' does not resolve.`, param)
    }
    for (const address of addresses) {
      const range = ranges.specialPurpose(address)
      if (range !== undefined) {
        return yield* InvalidRequest.of(
          `${what} '${url.host}' resolves to ${address}, which is not a public address (${range}); ` +
            "list the host in TRUSTED_CUSTOM_HOSTS to allow it.",
          param
        )
      }
    }
    return addresses satisfies PinnedAddresses
  })
})

/** The check of a custom host: its shape, then the address guard. */
export const makeCustomHostCheck = Effect.gen(function*() {
  const guard = yield* makeAddressGuard

  return Effect.fnUntraced(function*(host: string, param: string) {
    const url = parseCustomHost(host, param)
    if (url instanceof InvalidRequest) return yield* url
    // The parsed URL's own serialisation, so that the host connected to is the one checked here.
    const baseUrl = url.href.replace(/\/+$/, "")
    return { baseUrl, pinnedAddresses: yield* guard(url, "The custom host", param) } satisfies Destination
  })
})
