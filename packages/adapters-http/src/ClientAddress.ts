/**
 * The client's address, for the audit log. Behind proxies the socket's peer is the nearest proxy and each
 * proxy appends the address it received from to `X-Forwarded-For`; only the entries appended by trusted
 * proxies can be believed, and everything left of them is whatever the client sent. So the walk goes from
 * the right (the socket, then the last entry, …) past the trusted proxies, as Express's `trust proxy`
 * does, with the trust rules of the library Express uses (`proxy-addr`).
 */
import { Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { isIP } from "node:net"
import proxyAddr from "proxy-addr"

/**
 * Which proxies may name the client: `false` none (the socket's address is the client); `true` or a number
 * n the n nearest proxies, whatever their addresses; a list the proxies at these addresses or CIDR ranges,
 * where `loopback`, `linklocal` and `uniquelocal` name the usual ranges.
 */
export type TrustProxy = boolean | number | ReadonlyArray<string>

type TrustFunction = (address: string, hop: number) => boolean

const FALSE = /^(?:false|no|off|n)$/i
const TRUE = /^(?:true|yes|on|y)$/i
const HOPS = /^\d{1,3}$/

/** A proxy trust rule compiled once, or the reason it is not one. */
const compile = (trust: TrustProxy): TrustFunction | undefined | { readonly error: string } => {
  if (trust === false || trust === 0) return undefined
  if (trust === true) return (_, hop) => hop < 1
  if (typeof trust === "number") {
    return Number.isSafeInteger(trust) && trust > 0
      ? (_, hop) => hop < trust
      : { error: `a number of proxies must be a whole number from 0, got ${trust}` }
  }
  if (trust.length === 0) return undefined
  try {
    return proxyAddr.compile([...trust])
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * `TRUST_PROXY` as written: `false` (also no/off/n, or empty), `true` (also yes/on/y: the one nearest
 * proxy), a number of proxies, or a comma-separated list of proxy addresses, CIDR ranges and range names.
 * An error names the setting as `name` (the variable, or an embedding option).
 */
export const parseTrustProxy = (
  text: string,
  name = "TRUST_PROXY"
): { readonly trust: TrustProxy } | { readonly error: string } => {
  const value = text.trim()
  let trust: TrustProxy
  if (value === "" || FALSE.test(value)) trust = false
  else if (TRUE.test(value)) trust = true
  else if (HOPS.test(value)) trust = Number(value)
  else trust = value.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
  const compiled = compile(trust)
  if (compiled === undefined || !("error" in compiled)) return { trust }
  return {
    error:
      `${name} takes false, true (one proxy), a number of proxies, or a comma-separated list of proxy addresses and CIDR ranges (loopback, linklocal and uniquelocal name the usual ones); got '${text}': ${compiled.error}.`
  }
}

/** The entries of `X-Forwarded-For`, nearest proxy first. */
const forwardedRightToLeft = (header: string | undefined): Array<string> =>
  header === undefined
    ? []
    : header.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0).reverse()

/**
 * How the edge finds a request's client address; the rule is compiled once, here. The walk starts at the
 * request's peer (`remoteAddress`): with no peer known (a web `Request` handed over without one) there is
 * no address, and no forwarded entry can be believed.
 */
export const makeClientAddress = (trust: TrustProxy | undefined) => {
  const compiled = compile(trust ?? false)
  if (compiled !== undefined && "error" in compiled) throw new TypeError(`Invalid proxy trust: ${compiled.error}`)
  const trusted = compiled
  return (request: HttpServerRequest.HttpServerRequest): string | null => {
    const peerAddress = Option.getOrNull(request.remoteAddress)
    if (trusted === undefined || peerAddress === null) return peerAddress
    // proxy-addr's own walk, on any platform's request: from the peer leftwards while the hop is trusted.
    const hops = [peerAddress, ...forwardedRightToLeft(request.headers["x-forwarded-for"])]
    let hop = 0
    while (hop < hops.length - 1 && trusted(hops[hop], hop)) hop++
    // A forwarded entry that is not an address (a name, a port, garbage) names nobody.
    return isIP(hops[hop]) !== 0 ? hops[hop] : peerAddress
  }
}

/**
 * Whether a request came over HTTPS through a trusted proxy: the nearest proxy (the socket's peer) is trusted
 * and says so in `X-Forwarded-Proto` (its last entry: the one it wrote). Without proxy trust, never.
 */
export const makeForwardedHttps = (trust: TrustProxy | undefined) => {
  const compiled = compile(trust ?? false)
  if (compiled !== undefined && "error" in compiled) throw new TypeError(`Invalid proxy trust: ${compiled.error}`)
  const trusted = compiled
  return (request: HttpServerRequest.HttpServerRequest): boolean => {
    const peerAddress = Option.getOrNull(request.remoteAddress)
    if (trusted === undefined || peerAddress === null || !trusted(peerAddress, 0)) return false
    const proto = request.headers["x-forwarded-proto"]
    return proto !== undefined && proto.split(",").map((entry) => entry.trim().toLowerCase()).at(-1) === "https"
  }
}
