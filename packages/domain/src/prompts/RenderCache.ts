/**
 * What rendering keeps between requests, so that a render of a recently used prompt asks nothing of the
 * store: compiled versions and partials (immutable, kept until the bound evicts them), and what prompt
 * references and partial names resolved to (kept `RESOLUTION_CACHE_TTL_MS`).
 */
import { Effect } from "effect"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import type { Template } from "./Mustache.ts"
import type { Prompt, PromptVersion } from "./Prompt.ts"
import type { CompiledVersion } from "./TemplateCompiler.ts"

/**
 * How long a render reuses what a prompt reference and a partial name resolved to. Changes made through
 * this process clear it at once; another process sharing the store sees them within this time.
 */
export const RESOLUTION_CACHE_TTL_MS = 2_000

/** A prompt reference resolved for rendering. */
export interface RenderTarget {
  readonly prompt: Prompt
  readonly version: PromptVersion
  readonly template: CompiledVersion
  /** Every partial the template reaches, when no variable names one; otherwise resolved per render. */
  readonly partials: ReadonlyMap<string, Template> | undefined
}

export class RenderCache {
  /** By version id. */
  readonly compiledVersions = new TtlCache<string, CompiledVersion>(Number.POSITIVE_INFINITY, 2000)
  /** By partial version id. */
  readonly compiledPartials = new TtlCache<string, Template>(Number.POSITIVE_INFINITY, 2000)
  /** By organisation, key workspace and prompt reference. */
  readonly resolvedTargets = new TtlCache<string, RenderTarget>(RESOLUTION_CACHE_TTL_MS, 5_000)
  /** By workspace and partial name. */
  readonly resolvedPartials = new TtlCache<string, Template>(RESOLUTION_CACHE_TTL_MS, 5_000)

  /** Any change to prompts or partials in this process: the next render reads the store again. */
  readonly changed: Effect.Effect<void> = Effect.sync(() => {
    this.resolvedTargets.clear()
    this.resolvedPartials.clear()
  })
}
