/**
 * Prompt templates as a principal uses them: create, version, publish, label, partials, and render into
 * a model-ready chat or completion request body.
 *
 * The service is put together from its parts: the prompt templates (PromptTemplates.ts), their partials
 * (PromptPartials.ts) and rendering (PromptRenderer.ts, with PartialResolver.ts). They share what prompts
 * and partials have in common (TemplateResources.ts), the compiled templates (TemplateCompiler.ts) and
 * the render cache (RenderCache.ts), from which every change, here or in another process, clears what it touches.
 */
import { Context, Effect, Layer } from "effect"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { cacheLifetimeMs, ChangeFeed } from "../shared/ChangeFeed.ts"
import { StoreOutage } from "../shared/StoreOutage.ts"
import { makeLabels } from "./Labels.ts"
import { makePromptPartials } from "./PromptPartials.ts"
import { makePromptRenderer } from "./PromptRenderer.ts"
import type { PromptsShape } from "./PromptsShape.ts"
import { auditedPrompts } from "./PromptsUseCases.ts"
import { makePromptTemplates } from "./PromptTemplates.ts"
import { RenderCache, RESOLUTION_CACHE_TTL_MS } from "./RenderCache.ts"
import { makeTemplateResources } from "./TemplateResources.ts"

export type { LabelChange, LabelInput } from "./Labels.ts"
export { MAX_PARTIAL_DEPTH } from "./PartialResolver.ts"
export type { PartialChange, PartialInput } from "./PromptPartials.ts"
export type { Rendered } from "./PromptRenderer.ts"
export type { PromptsShape } from "./PromptsShape.ts"
export type { PromptDetails, PromptInput, PromptVersionView } from "./PromptTemplates.ts"
export { RESOLUTION_CACHE_TTL_MS } from "./RenderCache.ts"

export class Prompts extends Context.Service<Prompts, PromptsShape>()("@gateway-control/Prompts") {
  static readonly layer = Layer.effect(
    Prompts,
    Effect.gen(function*() {
      const feed = yield* ChangeFeed
      const outage = yield* StoreOutage
      const cache = new RenderCache(feed.publish, cacheLifetimeMs(feed, RESOLUTION_CACHE_TTL_MS), outage.snapshotMs)
      yield* feed.subscribe(cache.forget)
      // After an outage, as after a gap in the feed: whatever changed meanwhile went unheard.
      yield* outage.onRecovery(cache.forget)
      const resources = yield* makeTemplateResources
      const labels = yield* makeLabels(cache)
      return Prompts.of(auditedPrompts({
        ...(yield* makePromptTemplates(resources, cache, labels)),
        ...(yield* makePromptPartials(resources, cache)),
        ...labels.service,
        ...(yield* makePromptRenderer(resources, cache, outage))
      }, yield* AuditedUseCase))
    })
  )
}
