/**
 * A prompt version's or a partial's text compiled into Mustache templates, once per immutable version: a
 * completion or raw template is one template; a chat template is its JSON message list with every string
 * compiled on its own. Compiling is where a template's syntax is checked.
 */
import { Effect } from "effect"
import { InvalidRequest } from "../shared/Errors.ts"
import { nestsDeeperThan } from "./internal/jsonDepth.ts"
import type { RequestKind } from "./ModelRequest.ts"
import { MAX_TEMPLATE_DEPTH, type RenderOptions, type StepBudget, Template, TemplateSyntaxError } from "./Mustache.ts"
import type { PromptType } from "./Prompt.ts"

type CompiledValue =
  | { readonly kind: "template"; readonly template: Template }
  | { readonly kind: "array"; readonly items: ReadonlyArray<CompiledValue> }
  | { readonly kind: "object"; readonly entries: ReadonlyArray<readonly [string, CompiledValue]> }
  | { readonly kind: "value"; readonly value: unknown }

export interface CompiledVersion {
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

/**
 * How much a render has produced so far, in UTF-16 code units, across all of a chat template's strings, and
 * the steps it has left: both bounds hold for the whole render, not for each string.
 */
export interface Rendering {
  length: number
  readonly budget: StepBudget
}

export const renderValue = (
  value: CompiledValue,
  view: unknown,
  options: RenderOptions,
  rendering: Rendering
): unknown => {
  switch (value.kind) {
    case "template": {
      const text = value.template.render(view, options, rendering.length, rendering.budget)
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
export const parseMessages = (text: string): ReadonlyArray<unknown> | undefined => {
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

/** Runs a compilation, turning a syntax error into the caller's error naming `what` failed. */
const compiling = <A>(
  what: string,
  compile: () => Effect.Effect<A, InvalidRequest>
): Effect.Effect<A, InvalidRequest> =>
  Effect.suspend(() => {
    try {
      return compile()
    } catch (error) {
      if (error instanceof TemplateSyntaxError) {
        return Effect.fail(InvalidRequest.of(`Template error in ${what}: ${error.message}.`, "string"))
      }
      throw error
    }
  })

export const compileVersion = (
  what: string,
  source: { readonly string: string; readonly type: PromptType; readonly is_raw_template: boolean }
): Effect.Effect<CompiledVersion, InvalidRequest> =>
  compiling(what, (): Effect.Effect<CompiledVersion, InvalidRequest> => {
    if (source.is_raw_template || source.type === "completion") {
      const template = Template.compile(source.string)
      return Effect.succeed({
        kind: source.type,
        raw: source.is_raw_template,
        template,
        messages: undefined,
        partials: template.partials
      })
    }
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
    const templates: Array<Template> = []
    const messages = compileValue(parsed, templates)
    return Effect.succeed({
      kind: "chat",
      raw: false,
      template: undefined,
      messages,
      partials: templates.flatMap((t) => t.partials)
    })
  })

export const compilePartial = (slug: string, string: string): Effect.Effect<Template, InvalidRequest> =>
  compiling(`partial '${slug}'`, () => Effect.succeed(Template.compile(string)))
