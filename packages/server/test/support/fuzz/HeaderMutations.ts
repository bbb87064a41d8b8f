/**
 * Mutations of the headers the API reads: content types, API keys, request ids, and the provider headers of
 * the fine-tuning endpoint, whose custom hosts never lead off this machine.
 */
import fc from "fast-check"
import type { Labelled } from "./HostileValues.ts"
import { headerText, hostileContentType } from "./RequestMutations.ts"

const clip = (text: string, max: number) => text.length > max ? `${text.slice(0, max)}…` : text

/** What header mutations draw from: the fixture's keys and the names the provider headers can refer to. */
export interface HeaderContext {
  readonly adminKey: string
  readonly workspaceKey: string
  readonly virtualKeySlug: string
  readonly configSlug: string
}

/**
 * Custom hosts the gateway must refuse before connecting: loopback in its many spellings (no DNS lookup,
 * refused as internal) and text that is no http URL. Should a spelling slip past the check, the connection
 * still goes to this machine only (port 9, where nothing listens): never a name that needs DNS, never a
 * private or metadata address elsewhere on the network.
 */
const SAFE_CUSTOM_HOSTS = [
  "http://127.0.0.1:9",
  "https://127.0.0.1:9",
  "http://127.1:9",
  "http://[::1]:9",
  "http://0.0.0.0:9",
  "http://2130706433:9",
  "http://0x7f.1:9",
  "http://[::ffff:127.0.0.1]:9",
  "ftp://127.0.0.1:9",
  "http://user:pw@127.0.0.1:9",
  "not a url",
  "",
  `http://127.0.0.1:9/${"a".repeat(6_000)}`
] as const

export type HeaderChange = Labelled<readonly [name: string, value: string | undefined]>

const set = (name: string, value: string | undefined, label: string): HeaderChange => ({
  label,
  value: [name, value]
})

/** A value that can never be a slug (slugs are letters, digits, `_` and `-`), so never a fuzz-made resource. */
const notASlug = headerText(40).map((s) => `~${s}`)

export const headerChange = (context: HeaderContext): fc.Arbitrary<HeaderChange> => {
  const { adminKey, workspaceKey, virtualKeySlug, configSlug } = context
  const named = (name: string, values: fc.Arbitrary<string | undefined>) =>
    values.map((v) => set(name, v, v === undefined ? `${name} removed` : `${name}: ${JSON.stringify(clip(v, 60))}`))
  return fc.oneof(
    hostileContentType.map((ct) => set("content-type", ct.value, ct.label)),
    fc.constantFrom(
      set("x-service-api-key", undefined, "no api key"),
      set("x-service-api-key", "", "empty api key"),
      set("x-service-api-key", "garbage", "garbage api key"),
      set("x-service-api-key", `gwc_${"x".repeat(40)}`, "unknown well-formed api key"),
      set("x-service-api-key", "x".repeat(8_000), "8,000-char api key"),
      set("x-service-api-key", `Bearer ${adminKey}`, "api key with a Bearer prefix"),
      set("x-service-api-key", adminKey, "the admin key"),
      set("x-service-api-key", workspaceKey, "the workspace key")
    ),
    named("x-request-id", headerText(300)),
    named("accept", fc.constantFrom("text/html", "application/xml", "*/*", "application/json;q=0")),
    named(
      "x-service-virtual-key",
      fc.oneof(fc.constantFrom(virtualKeySlug, `@${virtualKeySlug}`, "", undefined), notASlug)
    ),
    named(
      "x-service-provider",
      fc.oneof(
        fc.constantFrom("openai", "together-ai", "fireworks-ai", "OPENAI", `@${virtualKeySlug}`, "@", "", undefined),
        notASlug
      )
    ),
    named("x-service-config", fc.oneof(fc.constantFrom(configSlug, "", undefined), notASlug)),
    named("x-service-custom-host", fc.constantFrom(...SAFE_CUSTOM_HOSTS, undefined)),
    named(
      "authorization",
      fc.oneof(fc.constantFrom("Bearer sk-good", "Bearer ", "bearer sk-good", "Basic eDp5", undefined), notASlug)
    )
  )
}

/** Header changes tried before any random run: other JSON media types, and every custom host. */
export const classicHeaderChanges = (hasBody: boolean, readsProviderHeaders: boolean): ReadonlyArray<HeaderChange> => [
  ...(hasBody
    ? ["application/vnd.x+json", "application/problem+json", "text/plain"].map((ct) =>
      set("content-type", ct, `content-type ${ct}`)
    )
    : []),
  set("x-service-api-key", undefined, "no api key"),
  ...(readsProviderHeaders
    ? SAFE_CUSTOM_HOSTS.map((host) =>
      set("x-service-custom-host", host, `x-service-custom-host: ${JSON.stringify(host.slice(0, 60))}`)
    )
    : [])
]
