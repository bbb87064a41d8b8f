/**
 * The HTTP server's metrics, under OpenTelemetry's semantic-convention names as Prometheus spells them
 * (`http.server.request.duration` in seconds → `http_server_request_duration_seconds`, with the attributes
 * `http.request.method`, `http.route` and `http.response.status_code`). Routes are their templates
 * (`/v1/prompts/:promptId/render`), never the path a client sent, so the series stay few.
 *
 * Each series is made once and kept, as a histogram of its own with the series' attributes given at its making:
 * a request costs a map lookup and a histogram observation. Not `Metric.withAttributes`: each update through it
 * adds its attributes to the fiber's context, and a request's context is deep enough that Effect copies every
 * service into a new map for it (measured: 17 KB allocated per render, a third of all it allocated).
 */
import { type Context, Metric } from "effect"

/** OpenTelemetry's advised boundaries for `http.server.request.duration`, in seconds. */
const BOUNDARIES = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

const requestDuration = (attributes: Record<string, string>) =>
  Metric.histogram("http_server_request_duration_seconds", {
    description: "Duration of HTTP server requests, by method, route template and status (seconds).",
    boundaries: BOUNDARIES,
    attributes
  })

/** What a request that matched no route is counted under. */
export const UNMATCHED_ROUTE = "(unmatched)"

/** By route template, then status, then method: found with no string built per request. */
const series = new Map<string, Map<number, Map<string, Metric.Histogram<number>>>>()

const seriesOf = (method: string, route: string, status: number) => {
  let byStatus = series.get(route)
  if (byStatus === undefined) series.set(route, byStatus = new Map())
  let byMethod = byStatus.get(status)
  if (byMethod === undefined) byStatus.set(status, byMethod = new Map())
  let found = byMethod.get(method)
  if (found === undefined) {
    found = requestDuration({
      http_request_method: method,
      http_route: route,
      http_response_status_code: String(status)
    })
    byMethod.set(method, found)
  }
  return found
}

/** Counts one answered request; `context` is the fiber's (it names the metric registry). */
export const observeRequest = (
  context: Context.Context<never>,
  method: string,
  route: string | undefined,
  status: number,
  seconds: number
) => seriesOf(method, route ?? UNMATCHED_ROUTE, status).updateUnsafe(seconds, context)

const rateLimitRefusals = Metric.counter("gateway_rate_limit_refusals_total", {
  description: "Calls refused with 429 because their key was past one of its rate limits.",
  incremental: true
})

/** One call refused for its key's rate limit. */
export const countRateLimitRefusal = Metric.update(rateLimitRefusals, 1)
