/**
 * How much a single render may produce. A small request can ask for a lot: a section over 300 items around
 * a 1 MB partial once answered 300 MB. The server sets the bound from `MAX_RENDER_BYTES`.
 */
import { Context } from "effect"

/** 4 MiB: far above any model's context window, far below what hurts the process. */
export const DEFAULT_MAX_RENDER_BYTES = 4 * 1024 * 1024

export interface RenderLimitsShape {
  /**
   * The most bytes the rendered part of an answer (`messages` or `prompt`, or the body a raw template
   * renders) may take in the answer's JSON, UTF-8 encoded.
   */
  readonly maxRenderBytes: number
}

export const RenderLimits = Context.Reference<RenderLimitsShape>("@gateway-control/domain/RenderLimits", {
  defaultValue: () => ({ maxRenderBytes: DEFAULT_MAX_RENDER_BYTES })
})
