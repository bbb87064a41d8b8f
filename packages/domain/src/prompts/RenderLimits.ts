/**
 * How much a single render may produce, and how much work it may do. A small request can ask for a lot: a
 * section over 300 items around a 1 MB partial once answered 300 MB, and three nested sections over a
 * 1,000-item list (a 2 KB body) are 10⁹ iterations that emit nothing. The server sets the bounds from
 * `MAX_RENDER_BYTES` and `MAX_RENDER_STEPS`.
 */
import { Context } from "effect"

/** 4 MiB: far above any model's context window, far below what hurts the process. */
export const DEFAULT_MAX_RENDER_BYTES = 4 * 1024 * 1024

/**
 * Steps (section iterations, partial and block expansions, frames searched by name lookups): no real prompt
 * takes near a million, and a million take a few milliseconds, so a render cannot hold up the process.
 */
export const DEFAULT_MAX_RENDER_STEPS = 1_000_000

export interface RenderLimitsShape {
  /**
   * The most bytes the rendered part of an answer (`messages` or `prompt`, or the body a raw template
   * renders) may take in the answer's JSON, UTF-8 encoded.
   */
  readonly maxRenderBytes: number
  /** The most steps a render may take (`StepBudget` in the engine says what a step is). */
  readonly maxRenderSteps: number
}

export const RenderLimits = Context.Reference<RenderLimitsShape>("@gateway-control/domain/RenderLimits", {
  defaultValue: () => ({ maxRenderBytes: DEFAULT_MAX_RENDER_BYTES, maxRenderSteps: DEFAULT_MAX_RENDER_STEPS })
})
