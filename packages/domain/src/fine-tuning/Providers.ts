/**
 * Model providers and how the gateway reaches them: the registry of known providers, the ports for the
 * upstream call, for resolving a custom host's addresses, and for keeping provider keys encrypted.
 */
import { Context, Effect, type Redacted, Schema } from "effect"
import { InvalidRequest } from "../shared/Errors.ts"
import { untrustedText } from "../shared/UntrustedText.ts"

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

/** The provider, when the registry knows it; else a refusal naming the known ones, for the field `param`. */
export const knownProvider = (registry: ProviderRegistry["Service"], provider: string, param: string) =>
  registry.baseUrls.has(provider)
    ? Effect.succeed(provider)
    : Effect.fail(InvalidRequest.of(
      `Unknown provider '${provider}'. Known providers: ${[...registry.baseUrls.keys()].join(", ")}.`,
      param
    ))

/** A provider call's destination and credentials. */
export interface UpstreamTarget {
  readonly baseUrl: string
  /**
   * The only addresses the connection may go to, each one checked against `AddressRanges`; the Host header
   * and the TLS name stay those of `baseUrl`. Undefined for hosts the operator configured or trusted, which
   * connect wherever DNS says.
   */
  readonly pinnedAddresses: ReadonlyArray<string> | undefined
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

/**
 * A call of a provider's OpenAI-compatible API: `method` on `{base}{path}`, `path` starting with `/` and each of
 * its segments already encoded, `query` appended, `body` (JSON) sent as `application/json`.
 */
export interface UpstreamRequest {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly query: ReadonlyArray<readonly [string, string]>
  readonly body: unknown
}

/** The provider refused the call (a non-2xx answer): passed through to the caller as it came. */
export class UpstreamRefused extends Schema.TaggedError<UpstreamRefused>()("UpstreamRefused", {
  status: Schema.Number,
  contentType: Schema.optionalKey(Schema.String),
  body: Schema.String
}) {
  override get message() {
    return `The provider refused the call (${this.status}).`
  }
}

/** The provider's fine-tuning API (`{base}/fine_tuning/jobs…`), or another authenticated call of its API. */
export class FineTuningUpstream extends Context.Service<
  FineTuningUpstream,
  {
    readonly send: (
      target: UpstreamTarget,
      request: UpstreamRequest
    ) => Effect.Effect<UpstreamAnswer, UpstreamUnreachable | UpstreamTimedOut>
  }
>()("@gateway-control/FineTuningUpstream") {}

/** Characters of a provider's answer the gateway takes: a longer one is refused, not read in part. */
export const MAX_PROVIDER_ANSWER = 8 * 1024 * 1024
/** A content type longer than this is not one. */
const MAX_CONTENT_TYPE = 256
const contentType = untrustedText(MAX_CONTENT_TYPE)

/**
 * The port as the domain uses it: a provider's answer is untrusted input (UntrustedText.ts), its length
 * bounded, its content type and a refusal's body made storable text. The JSON of a 2xx answer is repaired
 * where it is read (FineTuning.ts).
 */
export const untrustedFineTuningUpstream = (upstream: FineTuningUpstream["Service"]) => ({
  send: (
    target: UpstreamTarget,
    request: UpstreamRequest
  ): Effect.Effect<UpstreamAnswer, UpstreamUnreachable | UpstreamTimedOut | UpstreamInvalid> =>
    Effect.flatMap(upstream.send(target, request), (answer) =>
      answer.body.length > MAX_PROVIDER_ANSWER
        ? Effect.fail(
          new UpstreamInvalid({ message: `The provider's answer is longer than ${MAX_PROVIDER_ANSWER} characters.` })
        )
        : Effect.succeed({
          status: answer.status,
          contentType: answer.contentType === undefined ? undefined : contentType(answer.contentType),
          // A refusal passes through as text; a 2xx answer is parsed, and its JSON repaired then.
          body: answer.status >= 200 && answer.status <= 299
            ? answer.body
            : untrustedText(MAX_PROVIDER_ANSWER)(answer.body)
        }) satisfies Effect.Effect<UpstreamAnswer>)
})

/** DNS for the check of custom hosts: resolved once per call, and the call is pinned to the answers checked. */
export class HostResolver extends Context.Service<
  HostResolver,
  {
    /** Every address the host name resolves to (an IP literal resolves to itself); empty when none. */
    readonly resolve: (host: string) => Effect.Effect<ReadonlyArray<string>>
  }
>()("@gateway-control/HostResolver") {}

/** The special-purpose address ranges of IPv4 and IPv6, which a custom host must not lead to. */
export class AddressRanges extends Context.Service<
  AddressRanges,
  {
    /**
     * Why an address must not be reached: the special-purpose range it falls in (loopback, private,
     * link-local, …, including an IPv4 address carried inside an IPv6 form), or "not an IP address".
     * Undefined for a public unicast address.
     */
    readonly specialPurpose: (address: string) => string | undefined
  }
>()("@gateway-control/AddressRanges") {}

/** Encryption at rest for provider keys (AES-256-GCM in the Node implementation). */
export class SecretCipher extends Context.Service<
  SecretCipher,
  {
    readonly encrypt: (plaintext: string) => string
    /** Undefined when the ciphertext was not made with this key or was altered. */
    readonly decrypt: (ciphertext: string) => string | undefined
  }
>()("@gateway-control/SecretCipher") {}
