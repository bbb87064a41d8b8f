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
import type { Principal } from "../access/Principal.ts"
import { ChangeFeed } from "../shared/ChangeFeed.ts"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { Partial, PartialVersion, Prompt, PromptLabel, PromptVersion } from "./Prompt.ts"
import { makePromptPartials, type PartialInput } from "./PromptPartials.ts"
import { makePromptRenderer, type Rendered } from "./PromptRenderer.ts"
import { makePromptTemplates, type PromptDetails, type PromptInput } from "./PromptTemplates.ts"
import { RenderCache } from "./RenderCache.ts"
import { type Failure, makeTemplateResources } from "./TemplateResources.ts"

export { MAX_PARTIAL_DEPTH } from "./PartialResolver.ts"
export type { PartialInput } from "./PromptPartials.ts"
export type { Rendered } from "./PromptRenderer.ts"
export type { PromptDetails, PromptInput } from "./PromptTemplates.ts"
export { RESOLUTION_CACHE_TTL_MS } from "./RenderCache.ts"

/** Those in a workspace, or with an admin key and no workspace given, in the whole organisation. */
type ListInWorkspace<A> = (
  principal: Principal,
  workspaceId: string | undefined,
  page: PageRequest
) => Effect.Effect<Page<A>, Failure>

/** A partial with the version a call made or read. */
interface PartialAndVersion {
  readonly partial: Partial
  readonly version: PartialVersion
}

export class Prompts extends Context.Service<
  Prompts,
  {
    readonly create: (
      principal: Principal,
      input: PromptInput
    ) => Effect.Effect<PromptVersion & { readonly slug: string }, Failure | Conflict>
    readonly update: (
      principal: Principal,
      promptId: string,
      input: PromptInput
    ) => Effect.Effect<{ readonly prompt: Prompt; readonly version: PromptVersion }, Failure | Conflict>
    readonly publish: (principal: Principal, promptId: string, version: number) => Effect.Effect<Prompt, Failure>
    readonly setLabel: (
      principal: Principal,
      promptId: string,
      label: string,
      version: number
    ) => Effect.Effect<PromptLabel, Failure>
    readonly get: (principal: Principal, promptId: string) => Effect.Effect<PromptDetails, Failure>
    readonly list: ListInWorkspace<Prompt>
    readonly remove: (principal: Principal, promptId: string) => Effect.Effect<Prompt, Failure>
    readonly render: (
      principal: Principal,
      promptRef: string,
      body: Record<string, unknown>
    ) => Effect.Effect<Rendered, Failure>
    readonly createPartial: (
      principal: Principal,
      input: PartialInput
    ) => Effect.Effect<PartialAndVersion, Failure | Conflict>
    readonly updatePartial: (
      principal: Principal,
      partialId: string,
      input: PartialInput
    ) => Effect.Effect<PartialAndVersion, Failure | Conflict>
    readonly getPartial: (principal: Principal, partialId: string) => Effect.Effect<PartialAndVersion, Failure>
    readonly listPartials: ListInWorkspace<Partial>
  }
>()("@gateway-control/Prompts") {
  static readonly layer = Layer.effect(
    Prompts,
    Effect.gen(function*() {
      const feed = yield* ChangeFeed
      const cache = new RenderCache(feed.publish)
      yield* feed.subscribe(cache.forget)
      const resources = yield* makeTemplateResources
      return Prompts.of({
        ...(yield* makePromptTemplates(resources, cache)),
        ...(yield* makePromptPartials(resources, cache)),
        render: yield* makePromptRenderer(resources, cache)
      })
    })
  )
}
