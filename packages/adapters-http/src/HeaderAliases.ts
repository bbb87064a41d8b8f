/**
 * The header names Portkey's SDKs send, accepted as equivalents of ours, so that those clients work at their
 * defaults: `x-portkey-api-key` for `x-service-api-key`, and likewise for the provider-selecting headers. A
 * request may carry both spellings of one header only with one value: the edge refuses any other before
 * routing (400, naming both), so a reader takes whichever spelling the request has.
 */
import { type BadRequest, badRequest } from "./ApiErrors.ts"
import { API_KEY_HEADER, API_KEY_HEADER_ALIAS } from "./Security.ts"

export const HEADER_ALIASES = {
  [API_KEY_HEADER]: API_KEY_HEADER_ALIAS,
  "x-service-virtual-key": "x-portkey-virtual-key",
  "x-service-provider": "x-portkey-provider",
  "x-service-config": "x-portkey-config",
  "x-service-custom-host": "x-portkey-custom-host"
} as const

/** A header of ours that has an alias. */
export type AliasedHeader = keyof typeof HEADER_ALIASES

type Headers = Readonly<Record<string, string | undefined>>

const ALIASED = Object.entries(HEADER_ALIASES) as ReadonlyArray<readonly [AliasedHeader, string]>

/** The header's value, in whichever spelling the request sent it. */
export const aliasedHeader = (headers: Headers, name: AliasedHeader): string | undefined =>
  headers[name] ?? headers[HEADER_ALIASES[name]]

/** The name the request gave the header: the alias when only it was sent. Errors name what the client wrote. */
export const spellingOf = (headers: Headers, name: AliasedHeader): string =>
  headers[name] === undefined && headers[HEADER_ALIASES[name]] !== undefined ? HEADER_ALIASES[name] : name

/** A 400 for the first header sent in both spellings with different values; undefined when there is none. */
export const conflictingSpellings = (headers: Headers): BadRequest | undefined => {
  for (const [name, alias] of ALIASED) {
    const ours = headers[name]
    const theirs = headers[alias]
    if (ours !== undefined && theirs !== undefined && ours.trim() !== theirs.trim()) {
      return badRequest(`${name} and ${alias} are the same header and carry different values: send one.`, name)
    }
  }
  return undefined
}
