/**
 * The partials a template reaches, loaded before it renders so that rendering itself needs no store
 * access. `{{>slug}}` names a partial's published version and `{{>slug@3}}` its version 3; a dynamic
 * partial (`{{>*name}}`) takes its name from a variable of the render request.
 */
import { Clock, Effect, Option } from "effect"
import { InvalidRequest } from "../shared/Errors.ts"
import { StoreOutage, type StoreOutageShape } from "../shared/StoreOutage.ts"
import type { Template } from "./Mustache.ts"
import { PartialStore, type PartialVersion } from "./Prompt.ts"
import type { RenderCache } from "./RenderCache.ts"
import { type CompiledVersion, compilePartial } from "./TemplateCompiler.ts"

/** Partials may nest this deep; recursion beyond it is an error, not a hang. */
export const MAX_PARTIAL_DEPTH = 16

export const partialsTooDeep = () =>
  InvalidRequest.of(`Prompt partials are nested deeper than ${MAX_PARTIAL_DEPTH} levels.`, null)

/** A variable's value by its dotted name, reading own properties only, as the template engine does. */
const lookupVariable = (variables: Record<string, unknown>, name: string): unknown => {
  let value: unknown = variables
  for (const part of name.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

const parsePartialName = (name: string): { readonly slug: string; readonly version: number | undefined } => {
  const at = name.lastIndexOf("@")
  if (at > 0 && /^\d+$/.test(name.slice(at + 1))) {
    return { slug: name.slice(0, at), version: Number(name.slice(at + 1)) }
  }
  return { slug: name, version: undefined }
}

export const makePartialResolver = (cache: RenderCache, outage: StoreOutageShape = StoreOutage.never) =>
  Effect.gen(function*() {
    const partials = yield* PartialStore
    const { compiledPartials, resolvedPartials } = cache

    /**
     * Loads every partial the template can reach, breadth first, by the name the template uses. With `useCache`,
     * during an outage, a partial may come from the cache's snapshot: `onSnapshot` hears how old its read is.
     */
    return Effect.fnUntraced(function*(
      workspaceId: string,
      start: CompiledVersion["partials"],
      variables: Record<string, unknown>,
      useCache: boolean,
      onSnapshot?: (ageMs: number) => void
    ) {
      const startedAt = cache.generation
      const resolved = new Map<string, Template>()
      const missing = new Set<string>()
      const missingVariables = new Set<string>()
      let frontier = [...start]
      for (let depth = 0; frontier.length > 0; depth++) {
        if (depth >= MAX_PARTIAL_DEPTH) return yield* partialsTooDeep()
        const next: typeof frontier = []
        for (const reference of frontier) {
          let name = reference.name
          if (reference.dynamic) {
            const value = lookupVariable(variables, reference.name)
            if (typeof value !== "string" || value.length === 0) {
              missingVariables.add(reference.name)
              continue
            }
            name = value
          }
          if (resolved.has(name) || missing.has(name)) continue
          const cacheKey = `${workspaceId}/${name}`
          const now = yield* Clock.currentTimeMillis
          let cachedTemplate: Template | undefined
          if (useCache && outage.snapshotting()) {
            const hit = outage.fromSnapshot(resolvedPartials, cacheKey, now)
            if (hit !== undefined) {
              cachedTemplate = hit.value
              onSnapshot?.(hit.ageMs)
            }
          } else if (useCache) {
            cachedTemplate = resolvedPartials.get(cacheKey, now)
          }
          if (cachedTemplate !== undefined) {
            resolved.set(name, cachedTemplate)
            next.push(...cachedTemplate.partials)
            continue
          }
          const { slug, version } = parsePartialName(name)
          const partial = yield* partials.findBySlug(workspaceId, slug)
          // An archived partial is kept for reading, not for rendering.
          const partialVersion = Option.isNone(partial) || partial.value.status === "archived"
            ? Option.none<PartialVersion>()
            : yield* partials.getVersion(partial.value.id, version ?? partial.value.published_version)
          if (Option.isNone(partialVersion)) {
            missing.add(name)
            continue
          }
          let template = compiledPartials.get(partialVersion.value.id, 0)
          if (template === undefined) {
            // Saving checks a partial's template; one saved before a check was added may still fail here.
            template = yield* compilePartial(slug, partialVersion.value.string)
            compiledPartials.set(partialVersion.value.id, template, 0)
          }
          resolved.set(name, template)
          if (cache.generation === startedAt) resolvedPartials.set(cacheKey, template, now)
          next.push(...template.partials)
        }
        frontier = next
      }
      if (missing.size > 0) {
        return yield* InvalidRequest.of(`Missing prompt partials: ${[...missing].join(", ")}`, null)
      }
      if (missingVariables.size > 0) {
        return yield* InvalidRequest.of(`Missing variable partials: ${[...missingVariables].join(", ")}`, "variables")
      }
      return resolved
    })
  })
