/**
 * Listing fine-tuning jobs through a provider, so clients need a gateway key instead of the provider key.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { type Forbidden, InvalidRequest, type NotFound } from "./Errors.ts"
import { ensureAllowed } from "./Policy.ts"
import type { Principal } from "./Principal.ts"
import {
  FineTuningUpstream,
  HostResolver,
  isInternalAddress,
  ProviderRegistry,
  type UpstreamAnswer,
  UpstreamInvalid,
  type UpstreamTimedOut,
  type UpstreamUnreachable
} from "./Providers.ts"
import { VirtualKeys } from "./VirtualKeys.ts"

/** The provider-selecting headers of a call, as received. */
export interface ProviderHeaders {
  readonly virtualKey: string | undefined
  readonly provider: string | undefined
  readonly authorization: string | undefined
  readonly config: string | undefined
  readonly customHost: string | undefined
}

export interface JobsQuery {
  readonly limit: number
  readonly after: string | undefined
}

export type JobsAnswer =
  | {
    readonly _tag: "Listed"
    readonly body: {
      readonly object: "list"
      readonly data: ReadonlyArray<Readonly<Record<string, unknown>>>
      readonly has_more: boolean
    }
  }
  /** A non-2xx answer of the provider, passed through as it came. */
  | { readonly _tag: "PassThrough"; readonly answer: UpstreamAnswer }

const HOW =
  "Choose the provider one of four ways: x-service-virtual-key: <slug>; x-service-provider: <provider> with " +
  "Authorization: Bearer <provider key>; x-service-config: <config slug or JSON>; or x-service-provider, " +
  "Authorization and x-service-custom-host: <base URL>."

const bearer = (authorization: string | undefined): Redacted.Redacted<string> | undefined => {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? undefined : Redacted.make(match[1])
}

const isNumber = (v: unknown) => typeof v === "number" && Number.isFinite(v)
const isString = (v: unknown) => typeof v === "string"
const optional = (record: Record<string, unknown>, key: string, check: (v: unknown) => boolean) =>
  record[key] === undefined || record[key] === null || check(record[key])

/** The specification's list wrapper and job record; fields it does not name are kept as they came. */
const checkJobList = (text: string): JobsAnswer | UpstreamInvalid => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return new UpstreamInvalid({ message: "The provider's answer is not JSON." })
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return new UpstreamInvalid({ message: "The provider's answer is not a list object." })
  }
  const list = body as Record<string, unknown>
  if (
    !Array.isArray(list.data) || typeof list.has_more !== "boolean" ||
    (list.object !== undefined && list.object !== "list")
  ) {
    return new UpstreamInvalid({
      message: "The provider's answer lacks data (array), has_more (boolean) or object 'list'."
    })
  }
  for (const [i, job] of list.data.entries()) {
    const j = job as Record<string, unknown>
    const ok = job !== null && typeof job === "object" && isString(j.id) &&
      optional(j, "object", (v) => v === "fine_tuning.job") &&
      ["created_at", "finished_at", "estimated_finish", "trained_tokens", "seed"].every((k) =>
        optional(j, k, isNumber)
      ) &&
      ["fine_tuned_model", "model", "organization_id", "training_file", "validation_file", "status"].every((k) =>
        optional(j, k, isString)
      ) &&
      optional(j, "result_files", (v) => Array.isArray(v) && v.every(isString)) &&
      optional(j, "hyperparameters", (v) => typeof v === "object") &&
      optional(j, "integrations", Array.isArray) &&
      optional(j, "error", (v) => typeof v === "object")
    if (!ok) {
      return new UpstreamInvalid({
        message: `Job ${i} in the provider's answer does not have the fine-tuning job shape.`
      })
    }
  }
  return {
    _tag: "Listed",
    body: { object: "list", data: list.data as Array<Record<string, unknown>>, has_more: list.has_more }
  }
}

export class FineTuning extends Context.Service<
  FineTuning,
  {
    readonly listJobs: (
      principal: Principal,
      headers: ProviderHeaders,
      query: JobsQuery
    ) => Effect.Effect<
      JobsAnswer,
      InvalidRequest | Forbidden | NotFound | UpstreamUnreachable | UpstreamTimedOut | UpstreamInvalid
    >
  }
>()("@gateway-control/FineTuning") {
  static readonly layer = Layer.effect(
    FineTuning,
    Effect.gen(function*() {
      const registry = yield* ProviderRegistry
      const upstream = yield* FineTuningUpstream
      const resolver = yield* HostResolver
      const virtualKeys = yield* VirtualKeys

      const knownProvider = (provider: string, param: string) =>
        registry.baseUrls.has(provider)
          ? Effect.succeed(provider)
          : Effect.fail(InvalidRequest.of(
            `Unknown provider '${provider}'. Known providers: ${[...registry.baseUrls.keys()].join(", ")}.`,
            param
          ))

      /** Custom hosts must not lead into the gateway's own network, unless the operator trusts them. */
      const checkCustomHost = Effect.fnUntraced(function*(host: string, param: string) {
        let url: URL
        try {
          url = new URL(host)
        } catch {
          return yield* InvalidRequest.of("The custom host must be an http or https URL.", param)
        }
        if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username !== "" || url.password !== "") {
          return yield* InvalidRequest.of("The custom host must be an http or https URL without credentials.", param)
        }
        if (registry.trustedHosts.has(url.hostname) || registry.trustedHosts.has(url.host)) {
          return host.replace(/\/+$/, "")
        }
        const addresses = yield* resolver.resolve(url.hostname.replace(/^\[|\]$/g, ""))
        if (addresses.length === 0) {
          return yield* InvalidRequest.of(`The custom host '${url.hostname}' does not resolve.`, param)
        }
        const internal = addresses.find(isInternalAddress)
        if (internal !== undefined) {
          return yield* InvalidRequest.of(
            `The custom host '${url.host}' resolves to an internal address (${internal}); list it in TRUSTED_CUSTOM_HOSTS to allow it.`,
            param
          )
        }
        return host.replace(/\/+$/, "")
      })

      const listJobs = Effect.fn("FineTuning.listJobs")(
        function*(principal: Principal, headers: ProviderHeaders, query: JobsQuery) {
          yield* ensureAllowed(principal, "completions.write", {
            organisationId: principal.organisationId,
            workspaceId: principal.workspaceId
          }, { type: "workspace", id: principal.workspaceId ?? principal.organisationId })
          const workspaceId = principal.workspaceId!

          let provider: string | undefined
          let apiKey: Redacted.Redacted<string> | undefined
          let customHost: { readonly url: string; readonly param: string } | undefined
          let timeoutMs = registry.timeoutMs

          const useVirtualKey = Effect.fnUntraced(function*(slug: string) {
            const key = yield* virtualKeys.resolveVirtualKey(workspaceId, slug)
            provider = key.provider
            apiKey = key.apiKey
            if (key.customHost !== null) customHost = { url: key.customHost, param: "x-service-virtual-key" }
          })

          const fromHeaders = Effect.fnUntraced(function*() {
            if (headers.provider?.startsWith("@")) return yield* useVirtualKey(headers.provider.slice(1))
            if (headers.virtualKey !== undefined) return yield* useVirtualKey(headers.virtualKey)
            if (headers.provider !== undefined) {
              provider = yield* knownProvider(headers.provider, "x-service-provider")
              apiKey = bearer(headers.authorization)
              if (apiKey === undefined) {
                return yield* InvalidRequest.of(
                  "x-service-provider needs the provider key in 'Authorization: Bearer <key>'.",
                  "authorization"
                )
              }
            }
          })

          if (headers.config !== undefined) {
            const config = yield* virtualKeys.resolveConfig(workspaceId, headers.config)
            if (config.target.request_timeout !== undefined) timeoutMs = config.target.request_timeout
            if (config.target.virtual_key !== undefined) {
              yield* useVirtualKey(config.target.virtual_key)
            } else if (config.target.provider !== undefined && config.apiKey !== undefined) {
              provider = yield* knownProvider(config.target.provider, "x-service-config")
              apiKey = config.apiKey
            } else {
              yield* fromHeaders()
            }
            // Precedence for the custom host: header, then config, then virtual key.
            if (config.target.custom_host !== undefined) {
              customHost = { url: config.target.custom_host, param: "x-service-config" }
            }
          } else {
            yield* fromHeaders()
          }
          if (headers.customHost !== undefined) customHost = { url: headers.customHost, param: "x-service-custom-host" }
          if (provider === undefined || apiKey === undefined) {
            return yield* InvalidRequest.of(`No provider for this call. ${HOW}`, null)
          }

          const baseUrl = customHost === undefined
            ? registry.baseUrls.get(provider)!
            : yield* checkCustomHost(customHost.url, customHost.param)
          const answer = yield* upstream.listJobs({ baseUrl, apiKey, timeoutMs }, query)
          if (answer.status < 200 || answer.status > 299) return { _tag: "PassThrough" as const, answer }
          const checked = checkJobList(answer.body)
          if (checked instanceof UpstreamInvalid) return yield* checked
          return checked
        }
      )

      return FineTuning.of({ listJobs })
    })
  )
}
