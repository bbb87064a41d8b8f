/**
 * Traces over OTLP/HTTP, through Effect's own OTLP tracer (`effect/observability`), configured by the standard
 * OpenTelemetry variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), `OTEL_SERVICE_NAME`,
 * `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`. Without an endpoint nothing is installed: Effect keeps
 * its native tracer, whose spans its HTTP server and our hot paths skip, so tracing costs nothing then.
 *
 * Spans: Effect's HTTP server span a request (its parent the client's W3C `traceparent`, when one came), the
 * use case (`AuditedUseCase`), each SQL statement (`effect/sql`), and the calls to providers (Effect's HTTP
 * client, which sends `traceparent` on).
 */
import { Effect, Layer, Option, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { OtlpExporter, OtlpSerialization, OtlpTracer } from "effect/observability"
import type { AppConfig } from "./AppConfig.ts"
import type { TracesSamplerName } from "./Settings.ts"

/** Which traces are kept, as OpenTelemetry's `OTEL_TRACES_SAMPLER` names them. */
export interface TracesSampler {
  /** What a trace that starts here gets: every one, none, or a share (`ratio`). */
  readonly root: "always_on" | "always_off" | "traceidratio"
  /** Whether a trace that came with a `traceparent` follows the caller's decision (the `parentbased_` samplers). */
  readonly parentBased: boolean
  /** The share of traces kept by `traceidratio`, 0 to 1. */
  readonly ratio: number
}

export interface TracingConfig {
  /** Where spans are sent (the full traces URL); none, no tracing. */
  readonly tracesEndpoint: Option.Option<string>
  readonly serviceName: string
  readonly sampler: TracesSampler
}

const samplerOf = (name: TracesSamplerName, ratio: number): TracesSampler => {
  const parentBased = name.startsWith("parentbased_")
  const root = parentBased ? name.slice("parentbased_".length) : name
  return {
    root: root === "always_off" ? "always_off" : root === "traceidratio" ? "traceidratio" : "always_on",
    parentBased,
    ratio
  }
}

/** The tracing settings: the traces URL is `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, else the endpoint's `/v1/traces`. */
export const tracingConfigOf = (
  config: Pick<
    AppConfig,
    "otlpEndpoint" | "otlpTracesEndpoint" | "otelServiceName" | "otelTracesSampler" | "otelTracesSamplerArg"
  >
): TracingConfig => ({
  tracesEndpoint: Option.orElse(
    config.otlpTracesEndpoint,
    () => Option.map(config.otlpEndpoint, (url) => `${url.replace(/\/+$/, "")}/v1/traces`)
  ),
  serviceName: config.otelServiceName,
  sampler: samplerOf(config.otelTracesSampler, config.otelTracesSamplerArg)
})

const decideRoot = (sampler: TracesSampler) => {
  switch (sampler.root) {
    case "always_on":
      return true
    case "always_off":
      return false
    case "traceidratio":
      return Math.random() < sampler.ratio
  }
}

/**
 * `tracer` with the sampler's decision: a span inside this process follows its parent (so a trace is kept or
 * dropped whole); a span whose parent came from a caller follows the caller's flag when the sampler is
 * parent-based; a trace that starts here is kept as the sampler says. Effect's own choice (a span below the
 * minimum trace level) still drops a span.
 */
export const withSampler = (tracer: Tracer.Tracer, sampler: TracesSampler): Tracer.Tracer =>
  Tracer.make({
    span: (options) => {
      const parent = Option.getOrUndefined(options.parent)
      const decided = parent !== undefined && (parent._tag === "Span" || sampler.parentBased)
        ? parent.sampled
        : decideRoot(sampler)
      return tracer.span({ ...options, sampled: options.sampled && decided })
    },
    ...(tracer.context === undefined ? {} : { context: tracer.context })
  })

/** The OTLP tracer for the whole process, or nothing when no endpoint is configured. */
export const layerTracing = (config: TracingConfig): Layer.Layer<never> =>
  Option.match(config.tracesEndpoint, {
    onNone: () => Layer.empty,
    onSome: (url) =>
      Layer.effect(
        Tracer.Tracer,
        Effect.map(
          OtlpTracer.make({ url, resource: { serviceName: config.serviceName } }),
          (tracer) => withSampler(tracer, config.sampler)
        )
      ).pipe(
        Layer.provide(OtlpExporter.layerFlusher),
        Layer.provide(OtlpSerialization.layerJson),
        Layer.provide(FetchHttpClient.layer)
      )
  })
