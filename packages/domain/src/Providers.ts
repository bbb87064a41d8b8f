/**
 * Model providers and how the gateway reaches them: the registry of known providers, the ports for the
 * upstream call, for resolving a custom host's addresses, and for keeping provider keys encrypted.
 */
import { Context, type Effect, type Redacted, Schema } from "effect"

/** Known providers with the OpenAI-compatible fine-tuning API, by name. */
export class ProviderRegistry extends Context.Service<
  ProviderRegistry,
  {
    /** Base URL (ending before `/fine_tuning`) of each provider, by name. */
    readonly baseUrls: ReadonlyMap<string, string>
    /** How long an upstream call may take, unless a config says otherwise. */
    readonly timeoutMs: number
    /** Custom hosts allowed even though they resolve to private addresses: `host` or `host:port`. */
    readonly trustedHosts: ReadonlySet<string>
  }
>()("@gateway-control/ProviderRegistry") {}

export const DEFAULT_PROVIDER_BASE_URLS: ReadonlyMap<string, string> = new Map([
  ["openai", "https://api.openai.com/v1"],
  ["together-ai", "https://api.together.xyz/v1"],
  ["fireworks-ai", "https://api.fireworks.ai/inference/v1"]
])

/** A provider call's destination and credentials. */
export interface UpstreamTarget {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly timeoutMs: number
}

export interface UpstreamAnswer {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: string
}

export class UpstreamUnreachable extends Schema.TaggedError<UpstreamUnreachable>()("UpstreamUnreachable", {
  message: Schema.String
}) {}

export class UpstreamTimedOut extends Schema.TaggedError<UpstreamTimedOut>()("UpstreamTimedOut", {
  timeoutMs: Schema.Number
}) {
  override get message() {
    return `The provider did not answer within ${this.timeoutMs} ms.`
  }
}

/** The answer of the provider did not have the shape the specification gives. */
export class UpstreamInvalid extends Schema.TaggedError<UpstreamInvalid>()("UpstreamInvalid", {
  message: Schema.String
}) {}

/** `GET {base}/fine_tuning/jobs` at a provider. */
export class FineTuningUpstream extends Context.Service<
  FineTuningUpstream,
  {
    readonly listJobs: (
      target: UpstreamTarget,
      query: { readonly limit: number; readonly after: string | undefined }
    ) => Effect.Effect<UpstreamAnswer, UpstreamUnreachable | UpstreamTimedOut>
  }
>()("@gateway-control/FineTuningUpstream") {}

/** DNS for the SSRF check of custom hosts. */
export class HostResolver extends Context.Service<
  HostResolver,
  {
    /** Every address the host name resolves to (an IP literal resolves to itself); empty when none. */
    readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<string>>
  }
>()("@gateway-control/HostResolver") {}

/** Encryption at rest for provider keys (AES-256-GCM in the Node implementation). */
export class SecretCipher extends Context.Service<
  SecretCipher,
  {
    readonly encrypt: (plaintext: string) => string
    /** Undefined when the ciphertext was not made with this key or was altered. */
    readonly decrypt: (ciphertext: string) => string | undefined
  }
>()("@gateway-control/SecretCipher") {}

// ---------------------------------------------------------------------------------------------------------
// Addresses a custom host must not reach

const ipv4 = (address: string): ReadonlyArray<number> | undefined => {
  const parts = address.split(".")
  if (parts.length !== 4) return undefined
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN))
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined
}

const privateIpv4 = ([a, b]: ReadonlyArray<number>): boolean =>
  a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) ||
  (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 198 && (b === 18 || b === 19)) || a >= 224

/**
 * Loopback, private, link-local (which holds cloud metadata at 169.254.169.254), carrier-grade NAT,
 * unique-local IPv6, multicast and unspecified addresses: places a request from inside the network must
 * not be steered to.
 */
export const isInternalAddress = (address: string): boolean => {
  const v4 = ipv4(address)
  if (v4 !== undefined) return privateIpv4(v4)
  const v6 = address.toLowerCase().replace(/^\[|\]$/g, "")
  if (v6 === "::" || v6 === "::1") return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6)
  if (mapped !== null) return isInternalAddress(mapped[1])
  return /^(fe[89ab]|fc|fd|ff)/.test(v6) || !v6.includes(":")
}
