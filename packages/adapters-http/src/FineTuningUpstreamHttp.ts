/**
 * `FineTuningUpstream` over Effect's `HttpClient`: `GET {base}/fine_tuning/jobs` with the provider key as
 * a bearer token, under a timeout. The key never appears in errors.
 */
import { FineTuningUpstream, UpstreamTimedOut, UpstreamUnreachable } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"

export const layerFineTuningUpstream: Layer.Layer<FineTuningUpstream, never, HttpClient.HttpClient> = Layer.effect(
  FineTuningUpstream,
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    return FineTuningUpstream.of({
      listJobs: (target, query) => {
        const url = new URL(`${target.baseUrl.replace(/\/+$/, "")}/fine_tuning/jobs`)
        url.searchParams.set("limit", String(query.limit))
        if (query.after !== undefined) url.searchParams.set("after", query.after)
        const request = HttpClientRequest.get(url).pipe(
          HttpClientRequest.bearerToken(Redacted.value(target.apiKey)),
          HttpClientRequest.acceptJson
        )
        return client.execute(request).pipe(
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
          Effect.timeoutOrElse({
            duration: target.timeoutMs,
            orElse: () => Effect.fail(new UpstreamTimedOut({ timeoutMs: target.timeoutMs }))
          }),
          Effect.withSpan("FineTuningUpstream.listJobs", { attributes: { "server.address": url.host } })
        )
      }
    })
  })
)
