/**
 * Prompt templates as a principal uses them: create, version, publish, label, partials, and render into
 * a model-ready chat or completion request body.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { type Action, canSee, ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { hotPathSpan } from "../shared/internal/hotPathSpan.ts"
import { nowIso } from "../shared/internal/time.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { nestsDeeperThan } from "./internal/jsonDepth.ts"
import { jsonLargerThan } from "./internal/renderedSize.ts"
import { checkRequest, NULL_MEANS_DEFAULT, type RequestKind } from "./ModelRequest.ts"
import {
  MAX_TEMPLATE_DEPTH,
  MAX_VALUE_DEPTH,
  noEscape,
  PartialDepthExceeded,
  type RenderOptions,
  RenderTooLarge,
  Template,
  TemplateSyntaxError,
  ValueTooDeep
} from "./Mustache.ts"
import {
  BUILT_IN_LABELS,
  Partial,
  PartialStore,
  PartialVersion,
  Prompt,
  PromptLabel,
  PromptStore,
  type PromptType,
  PromptVersion
} from "./Prompt.ts"
import { RenderLimits } from "./RenderLimits.ts"

export interface PromptInput {
  readonly name?: string | undefined
  readonly slug?: string | undefined
  readonly workspace_id?: string | undefined
  readonly string?: string | undefined
  readonly parameters?: Readonly<Record<string, unknown>> | undefined
  readonly model?: string | undefined
  readonly type?: PromptType | undefined
  readonly is_raw_template?: boolean | undefined
  readonly version_description?: string | undefined
  readonly template_metadata?: Readonly<Record<string, unknown>> | undefined
}

export interface PartialInput {
  readonly name?: string | undefined
  readonly slug?: string | undefined
  readonly workspace_id?: string | undefined
  readonly string?: string | undefined
  readonly version_description?: string | undefined
}

export interface PromptDetails {
  readonly prompt: Prompt
  readonly versions: ReadonlyArray<PromptVersion>
  readonly labels: ReadonlyArray<PromptLabel>
}

export interface Rendered {
  readonly data: Record<string, unknown>
  /** Variables the template names that the request did not give (rendered as empty strings). */
  readonly missingVariables: ReadonlyArray<string>
  /** Deprecated fields the rendered body uses. */
  readonly deprecatedFields: ReadonlyArray<string>
}

type Failure = InvalidRequest | Forbidden | NotFound

/**
 * How long a render reuses what a prompt reference and a partial name resolved to. Changes made through
 * this process clear it at once; another process sharing the store sees them within this time.
 */
export const RESOLUTION_CACHE_TTL_MS = 2_000

/** Partials may nest this deep; recursion beyond it is an error, not a hang. */
export const MAX_PARTIAL_DEPTH = 16

const SLUG = /^[a-zA-Z0-9_-]{1,64}$/
const LABEL = /^[a-zA-Z0-9_-]{1,64}$/

// -----------------------------------------------------------------------------------------------------------
// Compiled versions

type CompiledValue =
  | { readonly kind: "template"; readonly template: Template }
  | { readonly kind: "array"; readonly items: ReadonlyArray<CompiledValue> }
  | { readonly kind: "object"; readonly entries: ReadonlyArray<readonly [string, CompiledValue]> }
  | { readonly kind: "value"; readonly value: unknown }

/** A prompt reference resolved for rendering. */
interface RenderTarget {
  readonly prompt: Prompt
  readonly version: PromptVersion
  readonly template: CompiledVersion
  /** Every partial the template reaches, when no variable names one; otherwise resolved per render. */
  readonly partials: ReadonlyMap<string, Template> | undefined
}

interface CompiledVersion {
  readonly kind: RequestKind
  readonly raw: boolean
  /** Completion and raw templates. */
  readonly template: Template | undefined
  /** Chat templates: the parsed message list, every string compiled on its own. */
  readonly messages: CompiledValue | undefined
  readonly partials: ReadonlyArray<{ readonly name: string; readonly dynamic: boolean }>
}

const compileValue = (value: unknown, into: Array<Template>): CompiledValue => {
  if (typeof value === "string") {
    const template = Template.compile(value)
    into.push(template)
    return { kind: "template", template }
  }
  if (Array.isArray(value)) return { kind: "array", items: value.map((item) => compileValue(item, into)) }
  if (value !== null && typeof value === "object") {
    return { kind: "object", entries: Object.entries(value).map(([k, v]) => [k, compileValue(v, into)] as const) }
  }
  return { kind: "value", value }
}

/** How much a render has produced so far, in UTF-16 code units, across all of a chat template's strings. */
interface Rendering {
  length: number
}

const renderValue = (value: CompiledValue, view: unknown, options: RenderOptions, rendering: Rendering): unknown => {
  switch (value.kind) {
    case "template": {
      const text = value.template.render(view, options, rendering.length)
      rendering.length += text.length
      return text
    }
    case "array":
      return value.items.map((item) => renderValue(item, view, options, rendering))
    case "object": {
      const out: Record<string, unknown> = {}
      for (const [key, inner] of value.entries) out[key] = renderValue(inner, view, options, rendering)
      return out
    }
    case "value":
      return value.value
  }
}

/** A chat template is a JSON array of message objects (each with a role). */
const parseMessages = (text: string): ReadonlyArray<unknown> | undefined => {
  try {
    const parsed: unknown = JSON.parse(text)
    if (
      Array.isArray(parsed) && parsed.length > 0 &&
      parsed.every((m) => m !== null && typeof m === "object" && !Array.isArray(m) && "role" in m)
    ) return parsed
  } catch {
    // not JSON: a completion template
  }
  return undefined
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
  if (error instanceof PartialDepthExceeded) {
    return InvalidRequest.of(`Prompt partials are nested deeper than ${MAX_PARTIAL_DEPTH} levels.`, null)
  }
  if (error instanceof ValueTooDeep) {
    return InvalidRequest.of(`${error.message}: interpolated values may nest ${MAX_VALUE_DEPTH} levels.`, "variables")
  }
  return undefined
}

const syntaxError = (what: string, error: unknown) =>
  InvalidRequest.of(
    `Template error in ${what}: ${error instanceof Error ? error.message : String(error)}.`,
    "string"
  )

const compileVersion = (
  what: string,
  source: { readonly string: string; readonly type: PromptType; readonly is_raw_template: boolean }
): Effect.Effect<CompiledVersion, InvalidRequest> =>
  Effect.suspend((): Effect.Effect<CompiledVersion, InvalidRequest> => {
    try {
      const templates: Array<Template> = []
      if (source.is_raw_template) {
        const template = Template.compile(source.string)
        return Effect.succeed({
          kind: source.type,
          raw: true,
          template,
          messages: undefined,
          partials: template.partials
        })
      }
      if (source.type === "chat") {
        const parsed = parseMessages(source.string)
        if (parsed === undefined) {
          return Effect.fail(InvalidRequest.of(
            `${what}: a chat template must be a JSON array of message objects, each with a role.`,
            "string"
          ))
        }
        // Compiling, rendering and checking walk this structure recursively.
        if (nestsDeeperThan(parsed, MAX_TEMPLATE_DEPTH)) {
          return Effect.fail(InvalidRequest.of(
            `${what}: a chat template's JSON may nest at most ${MAX_TEMPLATE_DEPTH} levels deep.`,
            "string"
          ))
        }
        const messages = compileValue(parsed, templates)
        return Effect.succeed({
          kind: "chat",
          raw: false,
          template: undefined,
          messages,
          partials: templates.flatMap((t) => t.partials)
        })
      }
      const template = Template.compile(source.string)
      return Effect.succeed({
        kind: "completion",
        raw: false,
        template,
        messages: undefined,
        partials: template.partials
      })
    } catch (error) {
      if (error instanceof TemplateSyntaxError) return Effect.fail(syntaxError(what, error))
      throw error
    }
  })

const compilePartial = (slug: string, string: string): Effect.Effect<Template, InvalidRequest> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(Template.compile(string))
    } catch (error) {
      if (error instanceof TemplateSyntaxError) return Effect.fail(syntaxError(`partial '${slug}'`, error))
      throw error
    }
  })

const lookupVariable = (variables: Record<string, unknown>, name: string): unknown => {
  let value: unknown = variables
  for (const part of name.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, part)) return undefined
    value = (value as Record<string, unknown>)[part]
  }
  return value
}

/** `{{>slug}}` is the published version, `{{>slug@3}}` version 3. */
const parsePartialName = (name: string): { readonly slug: string; readonly version: number | undefined } => {
  const at = name.lastIndexOf("@")
  if (at > 0 && /^\d+$/.test(name.slice(at + 1))) {
    return { slug: name.slice(0, at), version: Number(name.slice(at + 1)) }
  }
  return { slug: name, version: undefined }
}

/** `promptId` as given to render: id or slug, optionally `@N`, `@latest` or `@label`. */
const parsePromptRef = (ref: string) => {
  const at = ref.lastIndexOf("@")
  if (at <= 0) return { id: ref, selector: undefined }
  return { id: ref.slice(0, at), selector: ref.slice(at + 1) }
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
    readonly list: (
      principal: Principal,
      workspaceId: string | undefined,
      page: PageRequest
    ) => Effect.Effect<Page<Prompt>, Failure>
    readonly remove: (principal: Principal, promptId: string) => Effect.Effect<Prompt, Failure>
    readonly render: (
      principal: Principal,
      promptRef: string,
      body: Record<string, unknown>
    ) => Effect.Effect<Rendered, Failure>
    readonly createPartial: (
      principal: Principal,
      input: PartialInput
    ) => Effect.Effect<{ readonly partial: Partial; readonly version: PartialVersion }, Failure | Conflict>
    readonly updatePartial: (
      principal: Principal,
      partialId: string,
      input: PartialInput
    ) => Effect.Effect<{ readonly partial: Partial; readonly version: PartialVersion }, Failure | Conflict>
    readonly getPartial: (
      principal: Principal,
      partialId: string
    ) => Effect.Effect<{ readonly partial: Partial; readonly version: PartialVersion }, Failure>
    readonly listPartials: (
      principal: Principal,
      workspaceId: string | undefined,
      page: PageRequest
    ) => Effect.Effect<Page<Partial>, Failure>
  }
>()("@gateway-control/Prompts") {
  static readonly layer = Layer.effect(
    Prompts,
    Effect.gen(function*() {
      const prompts = yield* PromptStore
      const partials = yield* PartialStore
      const workspaces = yield* WorkspaceStore
      const crypto = yield* PlatformCrypto
      const { maxRenderBytes } = yield* RenderLimits
      const compiledVersions = new TtlCache<string, CompiledVersion>(Number.POSITIVE_INFINITY, 2000)
      const compiledPartials = new TtlCache<string, Template>(Number.POSITIVE_INFINITY, 2000)
      const resolvedTargets = new TtlCache<string, RenderTarget>(RESOLUTION_CACHE_TTL_MS, 5_000)
      const resolvedPartials = new TtlCache<string, Template>(RESOLUTION_CACHE_TTL_MS, 5_000)
      /** Any change to prompts or partials in this process: the next render reads the store again. */
      const changed = Effect.sync(() => {
        resolvedTargets.clear()
        resolvedPartials.clear()
      })

      const allowed = (
        principal: Principal,
        action: Action,
        prompt: { organisation_id: string; workspace_id: string; id: string },
        type = "prompt"
      ) =>
        ensureAllowed(principal, action, Target.workspace(prompt.organisation_id, prompt.workspace_id), {
          type,
          id: prompt.id
        })

      /** The workspace a new resource goes to: the given one (which must exist), or the key's own. */
      const targetWorkspace = Effect.fnUntraced(function*(principal: Principal, workspaceId: string | undefined) {
        const id = workspaceId ?? principal.workspaceId
        if (id === null || id === undefined) {
          return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
        }
        return yield* requireRow(yield* workspaces.get(id), "workspace", id)
      })

      /** A prompt by id or slug, if the principal's organisation has it. */
      const findPrompt = Effect.fnUntraced(function*(principal: Principal, idOrSlug: string) {
        // By id: the policy decides afterwards. By slug: only the slugs the key can see count.
        const byId = yield* prompts.get(idOrSlug)
        if (Option.isSome(byId)) return byId.value
        const bySlug = (yield* prompts.findBySlug(principal.organisationId, idOrSlug)).filter((p) =>
          canSee(principal, Target.workspace(p.organisation_id, p.workspace_id))
        )
        if (bySlug.length > 1) {
          return yield* InvalidRequest.of(
            `Several workspaces have a prompt with slug '${idOrSlug}'; use the prompt's id.`,
            "promptId"
          )
        }
        return yield* requireRow(Option.fromUndefinedOr(bySlug[0]), "prompt", idOrSlug)
      })

      const validateText = (value: string | undefined, param: string, max: number, required: boolean) => {
        if (value === undefined) {
          return required ? Effect.fail(InvalidRequest.of(`${param} is required.`, param)) : Effect.void
        }
        return value.trim().length === 0 || value.length > max
          ? Effect.fail(InvalidRequest.of(`${param} must be 1 to ${max} characters.`, param))
          : Effect.void
      }

      /** Saved parameters must make a body that can render: checked now, with a stand-in template. */
      const checkSaved = Effect.fnUntraced(function*(
        what: string,
        version: Pick<PromptVersion, "string" | "parameters" | "model" | "type" | "is_raw_template">
      ) {
        const compiled = yield* compileVersion(what, version)
        const probe: Record<string, unknown> = { ...version.parameters }
        delete probe.stream
        delete probe.stream_options
        probe.model = version.model ?? (typeof probe.model === "string" ? probe.model : "model-chosen-at-render")
        for (const key of NULL_MEANS_DEFAULT) if (probe[key] === null) delete probe[key]
        if (compiled.kind === "chat") {
          probe.messages = compiled.raw
            ? [{ role: "user", content: "" }]
            : renderValue(compiled.messages!, {}, { escape: noEscape }, { length: 0 })
        } else {
          probe.prompt = ""
        }
        const { violation } = checkRequest(compiled.kind, probe)
        if (violation !== undefined) {
          const param = violation.param.startsWith("messages") ? "string" : `parameters.${violation.param}`
          return yield* InvalidRequest.of(`${what} could never render: ${violation.message}`, param)
        }
      })

      /** Where a new prompt or partial goes, and under which slug: the checks both creations share. */
      const creationPlace = Effect.fnUntraced(function*(principal: Principal, input: PromptInput | PartialInput) {
        yield* validateText(input.name, "name", 255, true)
        yield* validateText(input.string, "string", 1_000_000, true)
        const workspace = yield* targetWorkspace(principal, input.workspace_id)
        yield* ensureAllowed(principal, "prompts.create", Target.workspace(workspace.organisation_id, workspace.id), {
          type: "workspace",
          id: workspace.id
        })
        const slug = input.slug ?? slugify(input.name!)
        if (!SLUG.test(slug)) {
          return yield* InvalidRequest.of("slug must be 1 to 64 letters, digits, '_' or '-'.", "slug")
        }
        return { slug, workspace }
      })

      const detectType = (input: PromptInput): PromptType =>
        input.type ?? (input.string !== undefined && parseMessages(input.string) !== undefined ? "chat" : "completion")

      const create = Effect.fn("Prompts.create")(function*(principal: Principal, input: PromptInput) {
        const { slug, workspace } = yield* creationPlace(principal, input)
        const now = yield* nowIso
        const prompt = new Prompt({
          id: crypto.uuid(),
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          name: input.name!.trim(),
          slug,
          published_version: 1,
          created_at: now,
          last_updated_at: now
        })
        const version = new PromptVersion({
          id: crypto.uuid(),
          prompt_id: prompt.id,
          version: 1,
          string: input.string!,
          parameters: { ...input.parameters },
          model: input.model ?? null,
          type: detectType(input),
          is_raw_template: input.is_raw_template ?? false,
          version_description: input.version_description ?? null,
          template_metadata: { ...input.template_metadata },
          created_at: now
        })
        yield* checkSaved(`prompt '${slug}'`, version)
        yield* prompts.insert(prompt, version)
        yield* changed
        for (const label of BUILT_IN_LABELS) {
          yield* prompts.setLabel(new PromptLabel({ prompt_id: prompt.id, label, version: 1, last_updated_at: now }))
        }
        return Object.assign(version, { slug })
      })

      const update = Effect.fn("Prompts.update")(function*(principal: Principal, promptId: string, input: PromptInput) {
        const prompt = yield* findPrompt(principal, promptId)
        yield* allowed(principal, "prompts.update", prompt)
        if (input.workspace_id !== undefined && input.workspace_id !== prompt.workspace_id) {
          return yield* InvalidRequest.of("A prompt cannot move to another workspace.", "workspace_id")
        }
        if (input.name !== undefined) yield* validateText(input.name, "name", 255, true)
        if (input.string !== undefined) yield* validateText(input.string, "string", 1_000_000, true)
        const latest = Option.getOrThrow(yield* prompts.latestVersion(prompt.id))
        const string = input.string ?? latest.string
        const version = new PromptVersion({
          id: crypto.uuid(),
          prompt_id: prompt.id,
          version: latest.version + 1,
          string,
          parameters: input.parameters === undefined ? latest.parameters : { ...input.parameters },
          model: input.model ?? latest.model,
          type: input.type ?? (input.string === undefined ? latest.type : detectType({ string })),
          is_raw_template: input.is_raw_template ?? latest.is_raw_template,
          version_description: input.version_description ?? null,
          template_metadata: input.template_metadata === undefined
            ? latest.template_metadata
            : { ...input.template_metadata },
          created_at: yield* nowIso
        })
        yield* checkSaved(`prompt '${prompt.slug}'`, version)
        yield* prompts.addVersion(version)
        yield* changed
        return { prompt, version }
      })

      const existingVersion = Effect.fnUntraced(function*(prompt: Prompt, version: number) {
        return yield* requireRow(
          yield* prompts.getVersion(prompt.id, version),
          `version of prompt '${prompt.slug}'`,
          String(version)
        )
      })

      const publish = Effect.fn("Prompts.publish")(function*(principal: Principal, promptId: string, version: number) {
        const prompt = yield* findPrompt(principal, promptId)
        yield* allowed(principal, "prompts.publish", prompt)
        yield* existingVersion(prompt, version)
        const now = yield* nowIso
        yield* prompts.setPublished(prompt.id, version, now)
        yield* changed
        return new Prompt({ ...prompt, published_version: version, last_updated_at: now })
      })

      const setLabel = Effect.fn("Prompts.setLabel")(
        function*(principal: Principal, promptId: string, label: string, version: number) {
          if (!LABEL.test(label) || /^(latest|\d+)$/.test(label)) {
            return yield* InvalidRequest.of(
              "A label is 1 to 64 letters, digits, '_' or '-', and not 'latest' or a number.",
              "label"
            )
          }
          const prompt = yield* findPrompt(principal, promptId)
          yield* allowed(principal, "prompts.publish", prompt)
          yield* existingVersion(prompt, version)
          const record = new PromptLabel({ prompt_id: prompt.id, label, version, last_updated_at: yield* nowIso })
          yield* prompts.setLabel(record)
          yield* changed
          return record
        }
      )

      const get = Effect.fn("Prompts.get")(function*(principal: Principal, promptId: string) {
        const prompt = yield* findPrompt(principal, promptId)
        yield* allowed(principal, "prompts.read", prompt)
        return { prompt, versions: yield* prompts.versions(prompt.id), labels: yield* prompts.labels(prompt.id) }
      })

      const listScope = ensureListScope

      const list = Effect.fn("Prompts.list")(
        function*(principal: Principal, workspaceId: string | undefined, page: PageRequest) {
          const scope = yield* listScope(principal, workspaceId, "prompts.list")
          return yield* prompts.list(principal.organisationId, scope, page)
        }
      )

      const remove = Effect.fn("Prompts.remove")(function*(principal: Principal, promptId: string) {
        const prompt = yield* findPrompt(principal, promptId)
        yield* allowed(principal, "prompts.delete", prompt)
        yield* prompts.delete(prompt.id)
        yield* changed
        return prompt
      })

      // ---------------------------------------------------------------------------------------------------
      // Partials

      const findPartial = Effect.fnUntraced(function*(principal: Principal, idOrSlug: string) {
        // By id: the policy decides afterwards. By slug: only in the key's own workspace.
        const byId = yield* partials.get(idOrSlug)
        if (Option.isSome(byId)) return byId.value
        const own = principal.workspaceId
        const bySlug = own === null ? Option.none() : yield* partials.findBySlug(own, idOrSlug)
        return yield* requireRow(bySlug, "prompt partial", idOrSlug)
      })

      const checkPartialTemplate = (slug: string, string: string) =>
        Effect.asVoid(compileVersion(`partial '${slug}'`, { string, type: "completion", is_raw_template: false }))

      const createPartial = Effect.fn("Prompts.createPartial")(function*(principal: Principal, input: PartialInput) {
        const { slug, workspace } = yield* creationPlace(principal, input)
        yield* checkPartialTemplate(slug, input.string!)
        const now = yield* nowIso
        const partial = new Partial({
          id: crypto.uuid(),
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          name: input.name!.trim(),
          slug,
          published_version: 1,
          created_at: now,
          last_updated_at: now
        })
        const version = new PartialVersion({
          id: crypto.uuid(),
          partial_id: partial.id,
          version: 1,
          string: input.string!,
          version_description: input.version_description ?? null,
          created_at: now
        })
        yield* partials.insert(partial, version)
        yield* changed
        return { partial, version }
      })

      const updatePartial = Effect.fn("Prompts.updatePartial")(
        function*(principal: Principal, partialId: string, input: PartialInput) {
          const partial = yield* findPartial(principal, partialId)
          yield* allowed(principal, "prompts.update", partial, "prompt partial")
          yield* validateText(input.string, "string", 1_000_000, true)
          yield* checkPartialTemplate(partial.slug, input.string!)
          const current = Option.getOrThrow(yield* partials.getVersion(partial.id, partial.published_version))
          const now = yield* nowIso
          const next = (yield* latestPartialVersion(partial)) + 1
          const version = new PartialVersion({
            id: crypto.uuid(),
            partial_id: partial.id,
            version: next,
            string: input.string ?? current.string,
            version_description: input.version_description ?? null,
            created_at: now
          })
          yield* partials.addVersion(version)
          yield* partials.setPublished(partial.id, next, now)
          yield* changed
          return { partial: new Partial({ ...partial, published_version: next, last_updated_at: now }), version }
        }
      )

      const latestPartialVersion = Effect.fnUntraced(function*(partial: Partial) {
        let version = partial.published_version
        while (Option.isSome(yield* partials.getVersion(partial.id, version + 1))) version++
        return version
      })

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

      // ---------------------------------------------------------------------------------------------------
      // Render

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

      /** Loads every partial the template can reach, breadth first, so rendering needs no store access. */
      const resolvePartials = Effect.fnUntraced(function*(
        workspaceId: string,
        start: CompiledVersion["partials"],
        variables: Record<string, unknown>,
        useCache: boolean
      ) {
        const resolved = new Map<string, Template>()
        const missing = new Set<string>()
        const missingVariables = new Set<string>()
        let frontier = [...start]
        for (let depth = 0; frontier.length > 0; depth++) {
          if (depth >= MAX_PARTIAL_DEPTH) {
            return yield* InvalidRequest.of(`Prompt partials are nested deeper than ${MAX_PARTIAL_DEPTH} levels.`, null)
          }
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
            const cachedTemplate = useCache ? resolvedPartials.get(cacheKey, now) : undefined
            if (cachedTemplate !== undefined) {
              resolved.set(name, cachedTemplate)
              next.push(...cachedTemplate.partials)
              continue
            }
            const { slug, version } = parsePartialName(name)
            const partial = yield* partials.findBySlug(workspaceId, slug)
            const partialVersion = Option.isNone(partial)
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
            resolvedPartials.set(cacheKey, template, now)
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

      const ownedField = (template: CompiledVersion) => template.kind === "chat" ? "messages" : "prompt"

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
          maxLength: maxRenderBytes
        }
        const rendering: Rendering = { length: 0 }
        let rendered: unknown
        try {
          if (template.kind === "chat" && !template.raw) {
            rendered = renderValue(template.messages!, view, options, rendering)
          } else {
            const text = template.template!.render(view, options)
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
        for (const key in body) if (key !== "variables" && Object.hasOwn(body, key)) data[key] = body[key]
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

      const renderWith = (target: RenderTarget, body: Record<string, unknown>) => {
        const owned = ownedField(target.template)
        if (Object.hasOwn(body, owned)) {
          return Effect.fail(InvalidRequest.of(`The template owns ${owned}; leave it out of the request.`, owned))
        }
        if (target.partials !== undefined) return renderTarget(target, body, target.partials)
        return Effect.flatMap(
          resolvePartials(
            target.prompt.workspace_id,
            target.template.partials,
            body.variables as Record<string, unknown>,
            true
          ),
          (partialTemplates) => renderTarget(target, body, partialTemplates)
        )
      }

      /**
       * The hottest path of the service. A reference resolved in the last moments renders without asking the
       * store (access is checked again for each caller); otherwise the store is asked and the result kept.
       */
      const renderSpan = hotPathSpan("Prompts.render")
      const render = (principal: Principal, promptRef: string, body: Record<string, unknown>) =>
        renderSpan(
          Effect.clockWith((clock): Effect.Effect<Rendered, Failure> => {
            const invalid = checkRenderBody(body)
            if (invalid !== undefined) return Effect.fail(invalid)
            const now = clock.currentTimeMillisUnsafe()
            const cacheKey = `${principal.organisationId}/${principal.workspaceId ?? "*"}/${promptRef}`
            const cached = resolvedTargets.get(cacheKey, now)
            const target = cached !== undefined
              ? Effect.as(allowed(principal, "prompts.render", cached.prompt), cached)
              : Effect.tap(
                resolveTarget(principal, promptRef),
                (resolved) => Effect.sync(() => resolvedTargets.set(cacheKey, resolved, now))
              )
            return Effect.flatMap(target, (resolved) => renderWith(resolved, body))
          })
        )

      return Prompts.of({
        create,
        update,
        publish,
        setLabel,
        get,
        list,
        remove,
        render,
        createPartial,
        updatePartial,
        getPartial,
        listPartials
      })
    })
  )
}
