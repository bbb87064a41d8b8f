/**
 * The domain's operational metrics, as Effect metrics: the server formats them for Prometheus (`/metrics` on
 * `METRICS_PORT`), and an embedding application reads them from Effect's metric registry. Each is updated by
 * an effect made once here, so the render path pays one counter update and no allocation for it. A metric with
 * attributes is one metric per series, its attributes given at its making, never `Metric.withAttributes`: that
 * adds them to the fiber's context at every update, which copies a deep context's every service.
 */
import { type Context, Duration, Effect, Metric } from "effect"

const renderCacheLookups = (result: "hit" | "miss") =>
  Metric.counter("gateway_render_cache_lookups_total", {
    description: "Renders that found the prompt's resolution in the process's cache (result=hit) or asked the store.",
    incremental: true,
    attributes: { result }
  })

/** One render found its resolved prompt cached. */
export const countRenderCacheHit = Metric.update(renderCacheLookups("hit"), 1)
/** One render resolved its prompt from the store. */
export const countRenderCacheMiss = Metric.update(renderCacheLookups("miss"), 1)

const renderDuration = Metric.histogram("gateway_render_duration_seconds", {
  description: "Time to render one prompt, from the request's body to the rendered body, a store read included on a " +
    "cache miss; failed renders too (seconds).",
  boundaries: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]
})

/**
 * Records one render's duration; the renderer takes a `performance.now()` pair around its own effect rather
 * than `Effect.timed`, so a render pays a histogram update and no more. `context` is the fiber's (it names
 * the metric registry).
 */
export const observeRenderDuration = (context: Context.Context<never>, seconds: number): void =>
  renderDuration.updateUnsafe(seconds, context)

const auditAppendDuration = Metric.histogram("gateway_audit_append_duration_seconds", {
  description: "Time to append one audit record to its chain, waiting for the chain's end included (seconds).",
  boundaries: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
})

const auditAppends = (chain: number) =>
  Metric.counter("gateway_audit_appends_total", {
    description: "Audit records appended, by chain.",
    incremental: true,
    attributes: { chain: String(chain) }
  })

const appendsByChain = new Map<number, Effect.Effect<void>>()

/** Times an append and counts it under its chain; the chains seen are the series of `gateway_audit_appends_total`. */
export const measureAuditAppend = <A extends { readonly chain: number }, E, R>(
  append: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.timed(append), ([took, record]) => {
    let counted = appendsByChain.get(record.chain)
    if (counted === undefined) {
      counted = Metric.update(auditAppends(record.chain), 1)
      appendsByChain.set(record.chain, counted)
    }
    return Effect.as(
      Effect.andThen(Metric.update(auditAppendDuration, Duration.toSeconds(took)), counted),
      record
    )
  })

const mcpHealthChecks = (result: "ok" | "failed") =>
  Metric.counter("gateway_mcp_health_checks_total", {
    description: "MCP health checks of integrations, by result (ok, failed).",
    incremental: true,
    attributes: { result }
  })

export const countMcpHealthCheck = {
  ok: Metric.update(mcpHealthChecks("ok"), 1),
  failed: Metric.update(mcpHealthChecks("failed"), 1)
}
