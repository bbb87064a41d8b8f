/**
 * `FineTuningUpstream` over Effect's `HttpClient`: a call of the provider's API (`{base}/fine_tuning/jobs…`) with
 * the provider key as a bearer token, under a timeout, without following redirects. The key never appears in
 * errors.
 */
import { FineTuningUpstream, UpstreamTimedOut, UpstreamUnreachable } from "@gateway-control/domain"
import { Context, Effect, Layer, Redacted, type Scope } from "effect"
import { type HttpClient, HttpClientRequest } from "effect/http"

/**
 * The providers known without configuration, and the base URL of each one's OpenAI-compatible API (the
 * part before `/fine_tuning`); `PROVIDER_BASE_URLS` overrides them or adds others.
 */
export const DEFAULT_PROVIDER_BASE_URLS: ReadonlyMap<string, string> = new Map([
  ["openai", "https://api.openai.com/v1"],
  ["together-ai", "https://api.together.xyz/v1"],
  ["fireworks-ai", "https://api.fireworks.ai/inference/v1"]
])

/** The HTTP clients provider calls are made with (the server builds them on undici). */
export class ProviderHttpClients extends Context.Service<
  ProviderHttpClients,
  {
    /**
     * A client for one call, released with the scope. With `pinnedAddresses`, its connections go only to
     * those addresses, whatever DNS answers meanwhile; the Host header and the TLS server name and
     * certificate check stay those of the URL. Without, it connects wherever DNS says. It never follows
     * redirects.
     */
    readonly clientFor: (
      pinnedAddresses: ReadonlyArray<string> | undefined
    ) => Effect.Effect<HttpClient.HttpClient, never, Scope.Scope>
  }
>()("@gateway-control/adapters-http/ProviderHttpClients") {}

export const layerFineTuningUpstream: Layer.Layer<FineTuningUpstream, never, ProviderHttpClients> = Layer.effect(
  FineTuningUpstream,
  Effect.gen(function*() {
    const clients = yield* ProviderHttpClients
    return FineTuningUpstream.of({
      send: (target, call) => {
        const url = new URL(`${target.baseUrl.replace(/\/+$/, "")}${call.path}`)
        for (const [name, value] of call.query) url.searchParams.set(name, value)
        const base = call.method === "GET" ? HttpClientRequest.get(url) : HttpClientRequest.post(url)
        const request = base.pipe(
          HttpClientRequest.bearerToken(Redacted.value(target.apiKey)),
          HttpClientRequest.acceptJson,
          call.body === undefined ? (r) => r : HttpClientRequest.bodyText(JSON.stringify(call.body), "application/json")
        )
        return clients.clientFor(target.pinnedAddresses).pipe(
          Effect.flatMap((client) => client.execute(request)),
          Effect.flatMap((response) =>
            Effect.map(response.text, (body) => ({
              status: response.status,
              contentType: response.headers["content-type"],
              body
            }))
          ),
          Effect.mapError((error) =>
            new UpstreamUnreachable({
              message: `The provider at ${url.origin} could not be reached (${error.reason._tag}).`
            })
          ),
          Effect.scoped,
          Effect.timeoutOrElse({
            duration: target.timeoutMs,
            orElse: () => Effect.fail(new UpstreamTimedOut({ timeoutMs: target.timeoutMs }))
          }),
          Effect.withSpan("FineTuningUpstream.send", {
            attributes: { "server.address": url.host, "http.request.method": call.method }
          })
        )
      }
    })
  })
)
