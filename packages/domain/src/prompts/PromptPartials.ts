/**
 * Prompt partials as a principal manages them: templates that prompts include by slug (`{{>slug}}`).
 * A partial's newest version is always its published one.
 */
import { Effect, Option } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { Principal } from "../access/Principal.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { Partial, PartialStore, PartialVersion } from "./Prompt.ts"
import type { RenderCache } from "./RenderCache.ts"
import { compilePartial } from "./TemplateCompiler.ts"
import {
  allowed,
  type TemplateResourceInput,
  type TemplateResources,
  validateTemplateText
} from "./TemplateResources.ts"

export type PartialInput = TemplateResourceInput

export const makePromptPartials = (resources: TemplateResources, { changed }: RenderCache) =>
  Effect.gen(function*() {
    // A partial's newest version is its published one: updating one publishes it.
    const partials = grantedWrites(yield* PartialStore, {
      insert: "prompts.create",
      addVersion: "prompts.update",
      setPublished: "prompts.update"
    })
    const crypto = yield* PlatformCrypto
    const { findPartial, listScope, newResource } = resources

    /** A version of the partial with the input's template: validated before, since it is required. */
    const newVersion = (partial: Partial, version: number, input: PartialInput, now: string) =>
      new PartialVersion({
        id: crypto.uuid(),
        partial_id: partial.id,
        version,
        string: input.string!,
        version_description: input.version_description ?? null,
        created_at: now
      })

    const createPartial = Effect.fn("Prompts.createPartial")(function*(principal: Principal, input: PartialInput) {
      const { creating, fields } = yield* newResource(principal, input)
      const partial = new Partial(fields)
      yield* compilePartial(partial.slug, input.string!)
      const version = newVersion(partial, 1, input, partial.created_at)
      yield* partials.insert(creating, partial, version)
      yield* changed
      return { partial, version }
    })

    /** The store keeps no pointer to a partial's newest version: it is found by looking past the published one. */
    const latestPartialVersion = Effect.fnUntraced(function*(partial: Partial) {
      let version = partial.published_version
      while (Option.isSome(yield* partials.getVersion(partial.id, version + 1))) version++
      return version
    })

    const updatePartial = Effect.fn("Prompts.updatePartial")(
      function*(principal: Principal, partialId: string, input: PartialInput) {
        const partial = yield* findPartial(principal, partialId)
        const updating = yield* allowed(principal, "prompts.update", partial, "prompt partial")
        yield* validateTemplateText(input.string)
        yield* compilePartial(partial.slug, input.string!)
        const now = yield* nowIso
        const next = (yield* latestPartialVersion(partial)) + 1
        const version = newVersion(partial, next, input, now)
        yield* partials.addVersion(updating, version)
        yield* partials.setPublished(updating, partial.id, next, now)
        yield* changed
        return { partial: new Partial({ ...partial, published_version: next, last_updated_at: now }), version }
      }
    )

    const getPartial = Effect.fn("Prompts.getPartial")(function*(principal: Principal, partialId: string) {
      const partial = yield* findPartial(principal, partialId)
      yield* allowed(principal, "prompts.read", partial, "prompt partial")
      return {
        partial,
        version: Option.getOrThrow(yield* partials.getVersion(partial.id, partial.published_version))
      }
    })

    const listPartials = Effect.fn("Prompts.listPartials")(
      function*(principal: Principal, workspaceId: string | undefined, page: PageRequest) {
        const scope = yield* listScope(principal, workspaceId, "prompts.list")
        return yield* partials.list(principal.organisationId, scope, page)
      }
    )

    return { createPartial, updatePartial, getPartial, listPartials }
  })
