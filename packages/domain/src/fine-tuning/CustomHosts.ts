/**
 * Custom hosts: base URLs that a call or a stored record names instead of the provider's own. The rule
 * against server-side request forgery lives here; the tables of special-purpose addresses live in an
 * adapter behind `AddressRanges`, and the pinned connection in the adapter behind `FineTuningUpstream`.
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

/**
 * The check of a custom host. The name is resolved once, every answer must be a public unicast address,
 * and the call is then pinned to those answers: a DNS answer that changes between the check and the
 * connection cannot lead into the gateway's own network. Hosts the operator lists in TRUSTED_CUSTOM_HOSTS
 * (`host` or `host:port`) are not checked and connect wherever DNS says.
 */
export const makeCustomHostCheck = Effect.gen(function*() {
  const registry = yield* ProviderRegistry
  const resolver = yield* HostResolver
  const ranges = yield* AddressRanges

  return Effect.fnUntraced(function*(host: string, param: string) {
    const url = parseCustomHost(host, param)
    if (url instanceof InvalidRequest) return yield* url
    // The parsed URL's own serialisation, so that the host connected to is the one checked here.
    const baseUrl = url.href.replace(/\/+$/, "")
    if (registry.trustedHosts.has(url.hostname) || registry.trustedHosts.has(url.host)) {
      return { baseUrl, pinnedAddresses: undefined } satisfies Destination
    }
    const addresses = yield* resolver.resolve(url.hostname.replace(/^\[|\]$/g, ""))
    if (addresses.length === 0) {
      return yield* InvalidRequest.of(`The custom host '${url.hostname}' does not resolve.`, param)
    }
    for (const address of addresses) {
      const range = ranges.specialPurpose(address)
      if (range !== undefined) {
        return yield* InvalidRequest.of(
          `The custom host '${url.host}' resolves to ${address}, which is not a public address (${range}); ` +
            "list the host in TRUSTED_CUSTOM_HOSTS to allow it.",
          param
        )
      }
    }
    return { baseUrl, pinnedAddresses: addresses } satisfies Destination
  })
})
