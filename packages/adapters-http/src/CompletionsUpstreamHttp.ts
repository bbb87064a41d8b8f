/**
 * `CompletionsUpstream` over Effect's `HttpClient`: `POST {base}/chat/completions` (or `/completions`) with the
 * rendered body as JSON and the provider key as a bearer token, without following redirects. The connection lives
 * in the caller's scope, so a client that stops reading (the console's Stop) aborts the provider's request. The key
 * never appears in errors.
 */
import { CompletionsUpstream, UpstreamTimedOut, UpstreamUnreachable } from "@gateway-control/domain"
import { Effect, Layer, Redacted, Stream } from "effect"
import { HttpClientRequest } from "effect/http"
import { ProviderHttpClients } from "./FineTuningUpstreamHttp.ts"

export const layerCompletionsUpstream: Layer.Layer<CompletionsUpstream, never, ProviderHttpClients> = Layer.effect(
  CompletionsUpstream,
  Effect.gen(function*() {
    const clients = yield* ProviderHttpClients
    return CompletionsUpstream.of({
      send: (target, endpoint, body) => {
        const url = new URL(`${target.baseUrl.replace(/\/+$/, "")}/${endpoint}`)
        const unreachable = (error: { readonly reason: { readonly _tag: string } }) =>
          new UpstreamUnreachable({
            message: `The provider at ${url.origin} could not be reached (${error.reason._tag}).`
          })
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.bearerToken(Redacted.value(target.apiKey)),
          HttpClientRequest.bodyJsonUnsafe(body),
          HttpClientRequest.setHeader("accept", body.stream === true ? "text/event-stream" : "application/json")
        )
        return clients.clientFor(target.pinnedAddresses).pipe(
          Effect.flatMap((client) => client.execute(request)),
          Effect.mapError(unreachable),
          Effect.timeoutOrElse({
            duration: target.timeoutMs,
            orElse: () => Effect.fail(new UpstreamTimedOut({ timeoutMs: target.timeoutMs }))
          }),
          Effect.map((response) => ({
            status: response.status,
            contentType: response.headers["content-type"],
            body: Stream.mapError(response.stream, unreachable),
            text: Effect.mapError(response.text, unreachable)
          })),
          Effect.withSpan("CompletionsUpstream.send", { attributes: { "server.address": url.host } })
        )
      }
    })
  })
)
