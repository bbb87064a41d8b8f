/**
 * Rendering a prompt into a model-ready chat or completion request body: the hottest path of the service.
 * A reference resolved in the last moments renders from the render cache without asking the store, and
 * without Effect steps but the access check and the failures.
 */
import { Clock, Effect, Option } from "effect"
import type { Principal } from "../access/Principal.ts"
import { InvalidRequest, requireRow } from "../shared/Errors.ts"
import { hotPathSpan } from "../shared/internal/hotPathSpan.ts"
import { countRenderCacheHit, countRenderCacheMiss, observeRenderDuration } from "../shared/OperationalMetrics.ts"
import { type SnapshotHit, StoreOutage, type StoreOutageShape } from "../shared/StoreOutage.ts"
import { nestsDeeperThan } from "./internal/jsonDepth.ts"
import { jsonLargerThan } from "./internal/renderedSize.ts"
import { checkRequest, NULL_MEANS_DEFAULT } from "./ModelRequest.ts"
import {
  MAX_VALUE_DEPTH,
  noEscape,
  PartialDepthExceeded,
  type RenderOptions,
  RenderStepsExceeded,
  RenderTooLarge,
  stepBudget,
  type Template,
  ValueTooDeep
} from "./Mustache.ts"
import { makePartialResolver, MAX_PARTIAL_DEPTH, partialsTooDeep } from "./PartialResolver.ts"
import { type Prompt, PromptStore, PromptVersion } from "./Prompt.ts"
import type { PromptDraft } from "./PromptInputs.ts"
import type { RenderCache, RenderTarget } from "./RenderCache.ts"
import { RenderLimits } from "./RenderLimits.ts"
import { type CompiledVersion, compileVersion, parseMessages, type Rendering, renderValue } from "./TemplateCompiler.ts"
import { allowed, type Failure, type TemplateResources, validateTemplateText } from "./TemplateResources.ts"

export interface Rendered {
  readonly data: Record<string, unknown>
  /** Variables the template names that the request did not give (rendered as empty strings). */
  readonly missingVariables: ReadonlyArray<string>
  /** Deprecated fields the rendered body uses. */
  readonly deprecatedFields: ReadonlyArray<string>
  /**
   * Rendered from the render cache's snapshot while the store is unreachable (StoreOutage.ts): how old the
   * oldest store read it used is.
   */
  readonly snapshotAgeMs?: number | undefined
}

/** `promptId` as given to render: id or slug, optionally `@N`, `@latest` or `@label`. */
const parsePromptRef = (ref: string) => {
  const at = ref.lastIndexOf("@")
  if (at <= 0) return { id: ref, selector: undefined }
  return { id: ref.slice(0, at), selector: ref.slice(at + 1) }
}

/** What every interpolation in a raw template goes through, whichever tag: it can only ever add string text. */
const jsonStringEscape = (value: string) => JSON.stringify(value).slice(1, -1)

const tooLargeFailure = (maxRenderBytes: number) =>
  InvalidRequest.of(
    `The rendered prompt would be larger than the render size limit of ${maxRenderBytes} bytes.`,
    "variables"
  )

/** A render stopped by one of the engine's bounds, as the caller's error; undefined for anything else. */
const renderFailure = (error: unknown): InvalidRequest | undefined => {
  if (error instanceof RenderTooLarge) return tooLargeFailure(error.maxLength)
  if (error instanceof RenderStepsExceeded) {
    return InvalidRequest.of(
      `The render would take more than the render step limit of ${error.maxSteps} steps ` +
        "(section iterations, partial expansions and name lookups): sections over long lists nest too deep.",
      "variables"
    )
  }
  if (error instanceof PartialDepthExceeded) return partialsTooDeep()
  if (error instanceof ValueTooDeep) {
    return InvalidRequest.of(`${error.message}: interpolated values may nest ${MAX_VALUE_DEPTH} levels.`, "variables")
  }
  return undefined
}

/** The checks on a render request's body that need nothing but the body. */
const checkRenderBody = (body: Record<string, unknown>): InvalidRequest | undefined => {
  if (Object.hasOwn(body, "hyperparameters")) {
    return InvalidRequest.of(
      "Hyperparameters go at the root of the body, next to variables; there is no 'hyperparameters' key.",
      "hyperparameters"
    )
  }
  const variables = body.variables
  if (variables === null || typeof variables !== "object" || Array.isArray(variables)) {
    return InvalidRequest.of("variables is required and must be an object.", "variables")
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    return InvalidRequest.of("stream must be a boolean.", "stream")
  }
  return undefined
}

/**
 * Fields of a render's body that are not fields of the request it renders: its variables, and what clients add
 * to address the render (Portkey's Node SDK sends the path's prompt reference again as `prompt_id`). They never
 * reach `data`, which goes to a provider.
 */
const RENDER_ONLY_FIELDS: ReadonlySet<string> = new Set(["variables", "prompt_id", "promptId"])

/** The field of the request body the template renders. */
const ownedField = (template: CompiledVersion) => template.kind === "chat" ? "messages" : "prompt"

export const makePromptRenderer = (
  resources: TemplateResources,
  cache: RenderCache,
  outage: StoreOutageShape = StoreOutage.never
) =>
  Effect.gen(function*() {
    const prompts = yield* PromptStore
    const { maxRenderBytes, maxRenderSteps } = yield* RenderLimits
    const resolvePartials = yield* makePartialResolver(cache, outage)
    const { existingVersion, findPrompt } = resources
    const { compiledVersions, resolvedTargets } = cache

    const compiled = (prompt: Prompt, version: PromptVersion) => {
      const cached = compiledVersions.get(version.id, 0)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.tap(
        compileVersion(`prompt '${prompt.slug}' version ${version.version}`, version),
        (c) => Effect.sync(() => compiledVersions.set(version.id, c, 0))
      )
    }

    const selectVersion = Effect.fnUntraced(function*(prompt: Prompt, selector: string | undefined) {
      if (selector === undefined) return yield* existingVersion(prompt, prompt.published_version)
      if (/^\d+$/.test(selector)) return yield* existingVersion(prompt, Number(selector))
      if (selector === "latest") return Option.getOrThrow(yield* prompts.latestVersion(prompt.id))
      const label = yield* requireRow(
        Option.fromUndefinedOr((yield* prompts.labels(prompt.id)).find((l) => l.label === selector)),
        `label of prompt '${prompt.slug}'`,
        selector
      )
      return yield* existingVersion(prompt, label.version)
    })

    /** What a prompt reference resolves to, for this principal: the prompt, its version, compiled. */
    const resolveTarget = Effect.fnUntraced(function*(principal: Principal, promptRef: string) {
      const { id, selector } = parsePromptRef(promptRef)
      const prompt = yield* findPrompt(principal, id)
      yield* allowed(principal, "prompts.render", prompt)
      const version = yield* selectVersion(prompt, selector)
      const template = yield* compiled(prompt, version)
      // Read fresh, so that a cached target is never older than the resolution lifetime.
      const partials = template.partials.some((p) => p.dynamic)
        ? undefined
        : yield* resolvePartials(prompt.workspace_id, template.partials, {}, false)
      const target: RenderTarget = { prompt, version, template, partials }
      return target
    })

    /** Renders a resolved target: no store access, and no Effect steps but the failures. */
    const renderTarget = (
      target: RenderTarget,
      body: Record<string, unknown>,
      partialTemplates: ReadonlyMap<string, Template>
    ): Effect.Effect<Rendered, InvalidRequest> => {
      const { prompt, template, version } = target
      const view = body.variables as Record<string, unknown>
      const missing = new Set<string>()
      const options: RenderOptions = {
        escape: noEscape,
        encode: template.raw ? jsonStringEscape : undefined,
        partial: (name: string) => partialTemplates.get(name),
        onMissing: (name: string) => void missing.add(name),
        maxPartialDepth: MAX_PARTIAL_DEPTH,
        maxLength: maxRenderBytes,
        maxSteps: maxRenderSteps
      }
      const rendering: Rendering = { length: 0, budget: stepBudget(options) }
      let rendered: unknown
      try {
        if (template.kind === "chat" && !template.raw) {
          rendered = renderValue(template.messages!, view, options, rendering)
        } else {
          const text = template.template!.render(view, options, 0, rendering.budget)
          rendering.length = text.length
          rendered = text
        }
      } catch (error) {
        const failure = renderFailure(error)
        if (failure === undefined) throw error
        return Effect.fail(failure)
      }
      if (template.raw) {
        try {
          rendered = JSON.parse(rendered as string)
        } catch {
          return Effect.fail(InvalidRequest.of(
            `The raw template of prompt '${prompt.slug}' did not render to valid JSON with these variables.`,
            "variables"
          ))
        }
        // Checking, measuring and answering serialise it recursively.
        if (nestsDeeperThan(rendered, MAX_VALUE_DEPTH)) {
          return Effect.fail(InvalidRequest.of(
            `The raw template of prompt '${prompt.slug}' rendered JSON nested deeper than ${MAX_VALUE_DEPTH} levels with these variables.`,
            "variables"
          ))
        }
      }
      if (jsonLargerThan(rendered, rendering.length + version.string.length, maxRenderBytes)) {
        return Effect.fail(tooLargeFailure(maxRenderBytes))
      }

      const data: Record<string, unknown> = { ...version.parameters }
      delete data.stream
      if (version.model !== null) data.model = version.model
      for (const key in body) if (!RENDER_ONLY_FIELDS.has(key) && Object.hasOwn(body, key)) data[key] = body[key]
      if (
        template.raw && template.kind === "chat" && rendered !== null && typeof rendered === "object" &&
        !Array.isArray(rendered)
      ) {
        // A raw chat template may render a whole body; its fields sit under the request's.
        for (const [key, value] of Object.entries(rendered)) if (!Object.hasOwn(body, key)) data[key] = value
      } else {
        data[ownedField(template)] = rendered
      }
      for (const key of NULL_MEANS_DEFAULT) if (data[key] === null) delete data[key]
      const { deprecated, violation } = checkRequest(template.kind, data)
      if (violation !== undefined) return Effect.fail(InvalidRequest.of(violation.message, violation.param))
      return Effect.succeed({ data, missingVariables: [...missing], deprecatedFields: deprecated })
    }

    const renderWith = (target: RenderTarget, body: Record<string, unknown>, snapshotAgeMs?: number) => {
      const owned = ownedField(target.template)
      if (Object.hasOwn(body, owned)) {
        return Effect.fail(InvalidRequest.of(`The template owns ${owned}; leave it out of the request.`, owned))
      }
      if (target.partials !== undefined) {
        const rendered = renderTarget(target, body, target.partials)
        return snapshotAgeMs === undefined ? rendered : Effect.map(rendered, (r) => ({ ...r, snapshotAgeMs }))
      }
      let oldest = snapshotAgeMs
      return Effect.flatMap(
        resolvePartials(
          target.prompt.workspace_id,
          target.template.partials,
          body.variables as Record<string, unknown>,
          true,
          (ageMs) => void (oldest = Math.max(oldest ?? 0, ageMs))
        ),
        (partialTemplates) =>
          Effect.map(
            renderTarget(target, body, partialTemplates),
            (r): Rendered => oldest === undefined ? r : { ...r, snapshotAgeMs: oldest }
          )
      )
    }

    /** Renders what the snapshot holds of a reference, during an outage; access is checked as for any cached one. */
    const renderSnapshot = (principal: Principal, hit: SnapshotHit<RenderTarget>, body: Record<string, unknown>) =>
      Effect.andThen(
        countRenderCacheHit,
        Effect.andThen(allowed(principal, "prompts.render", hit.value.prompt), renderWith(hit.value, body, hit.ageMs))
      )

    /**
     * A reference resolved in the last moments renders without asking the store (access is checked again
     * for each caller); otherwise the store is asked and the result kept.
     */
    /**
     * Renders an unsaved edit of a version (`promptRef` names it, as for render): the draft's fields in place of
     * the version's, compiled and rendered as a saved version would be, nothing stored or cached. Trying an edit
     * needs `prompts.update` on the prompt besides `prompts.render`.
     */
    const renderDraft = Effect.fn("Prompts.renderDraft")(
      function*(principal: Principal, promptRef: string, draft: PromptDraft, body: Record<string, unknown>) {
        const invalid = checkRenderBody(body)
        if (invalid !== undefined) return yield* invalid
        const { id, selector } = parsePromptRef(promptRef)
        const prompt = yield* findPrompt(principal, id)
        yield* allowed(principal, "prompts.render", prompt)
        yield* allowed(principal, "prompts.update", prompt)
        const base = yield* selectVersion(prompt, selector)
        if (draft.string !== undefined) yield* validateTemplateText(draft.string)
        const string = draft.string ?? base.string
        const version = new PromptVersion({
          ...base,
          string,
          model: draft.model ?? base.model,
          parameters: draft.parameters ?? base.parameters,
          type: draft.type ??
            (draft.string === undefined ? base.type : parseMessages(string) === undefined ? "completion" : "chat"),
          is_raw_template: draft.is_raw_template ?? base.is_raw_template
        })
        const template = yield* compileVersion(`the unsaved edit of prompt '${prompt.slug}'`, version)
        return yield* renderWith({ prompt, version, template, partials: undefined }, body)
      }
    )

    const renderSpan = hotPathSpan("Prompts.render")
    const render = (principal: Principal, promptRef: string, body: Record<string, unknown>) =>
      renderSpan(
        Effect.withFiber((fiber): Effect.Effect<Rendered, Failure> => {
          // Timed here, with no Effect steps of its own: one exit hook, two clock reads, one histogram update.
          const startedAt = performance.now()
          return Effect.onExit(renderAt(principal, promptRef, body, fiber.getRef(Clock.Clock)), () => {
            observeRenderDuration(fiber.context, (performance.now() - startedAt) / 1000)
            return Effect.void
          })
        })
      )
    const renderAt = (principal: Principal, promptRef: string, body: Record<string, unknown>, clock: Clock.Clock) => {
      const invalid = checkRenderBody(body)
      if (invalid !== undefined) return Effect.fail(invalid)
      const now = clock.currentTimeMillisUnsafe()
      const cacheKey = `${principal.organisationId}/${principal.workspaceId ?? "*"}/${promptRef}`
      // While the store is unreachable, what the snapshot holds answers without asking it first.
      const snapshotting = outage.snapshotting()
      if (snapshotting) {
        const hit = outage.fromSnapshot(resolvedTargets, cacheKey, now)
        if (hit !== undefined) return renderSnapshot(principal, hit, body)
      }
      const cached = snapshotting ? undefined : resolvedTargets.get(cacheKey, now)
      const startedAt = cache.generation
      const target = cached !== undefined
        ? Effect.andThen(
          countRenderCacheHit,
          Effect.as(allowed(principal, "prompts.render", cached.prompt), cached)
        )
        : Effect.tap(
          Effect.andThen(
            countRenderCacheMiss,
            // A render that comes while another resolves the same reference waits for that resolution.
            cache.resolving.run(
              cacheKey,
              startedAt,
              resolveTarget(principal, promptRef),
              (shared) => Effect.as(allowed(principal, "prompts.render", shared.prompt), shared)
            )
          ),
          (resolved) =>
            Effect.sync(() => {
              // A change heard while resolving may have come after the store was read.
              if (cache.generation === startedAt) resolvedTargets.set(cacheKey, resolved, now)
            })
        )
      const rendered = Effect.flatMap(target, (resolved) => renderWith(resolved, body))
      if (cached !== undefined && cached.partials !== undefined) return rendered
      // The store did not answer: the outage starts, and the snapshot answers if it holds the reference.
      return outage.orSnapshot(rendered, () => {
        const hit = outage.fromSnapshot(resolvedTargets, cacheKey, now)
        return hit === undefined ? undefined : renderSnapshot(principal, hit, body)
      })
    }
    return { render, renderDraft }
  })
