/**
 * `GET /metrics` in Prometheus's text format, on a listener of its own at `HOST`:`METRICS_PORT` (none when the
 * setting is unset), so the API's port never exposes it and a scraper needs no API key. It serves the Effect
 * metrics the domain and adapters update (formatted by Effect's `PrometheusMetrics`) and the process basics of
 * `prom-client` (CPU, memory, heap, event-loop delay, handles, GC). `prom-client` is loaded only when the
 * listener is configured.
 */
import { Effect, Layer, Option } from "effect"
import * as PrometheusMetrics from "effect/observability/PrometheusMetrics"
import { createServer, type Server } from "node:http"
import type { AppConfig } from "./AppConfig.ts"

const listen = (server: Server, host: string, port: number) =>
  Effect.callback<void, Error>((resume) => {
    const onError = (error: Error) => resume(Effect.fail(error))
    server.once("error", onError)
    server.listen(port, host, () => {
      server.off("error", onError)
      resume(Effect.void)
    })
  })

const close = (server: Server) =>
  Effect.callback<void>((resume) => {
    server.close(() => resume(Effect.void))
    server.closeAllConnections()
  })

/** The metrics listener, for as long as the layer lives; nothing when `METRICS_PORT` is unset. */
export const layerMetricsListener = (config: Pick<AppConfig, "host" | "metricsPort">): Layer.Layer<never> =>
  Option.match(config.metricsPort, {
    onNone: () => Layer.empty,
    onSome: (port) =>
      Layer.effectDiscard(Effect.gen(function*() {
        const { collectDefaultMetrics, Registry } = yield* Effect.promise(() => import("prom-client"))
        const processMetrics = new Registry()
        collectDefaultMetrics({ register: processMetrics })
        // The context names the Effect metric registry the services update.
        const context = yield* Effect.context<never>()
        const server = createServer((request, response) => {
          const path = (request.url ?? "").split("?")[0]
          if (path !== "/metrics" || (request.method !== "GET" && request.method !== "HEAD")) {
            response.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at GET /metrics\n")
            return
          }
          processMetrics.metrics().then(
            (basics) => {
              const text = `${PrometheusMetrics.formatUnsafe(context)}\n${basics}`
              response.writeHead(200, { "content-type": processMetrics.contentType }).end(text)
            },
            () => response.writeHead(500, { "content-type": "text/plain" }).end("metrics failed\n")
          )
        })
        yield* Effect.acquireRelease(
          Effect.orDie(listen(server, config.host, port)),
          () => close(server)
        )
        yield* Effect.logInfo(`metrics: http://${config.host}:${port}/metrics`)
      }))
  })
