/**
 * A Mustache engine: templates compile once into a tree, then into generated code, then render many times.
 *
 * Covers the specification's interpolation, sections, inverted sections, comments, set-delimiter,
 * partials with standalone-line rules and indentation, dynamic partial names (`{{>*name}}`, and
 * `{{>>name}}` as gateway-control spells it) and inheritance (`{{<parent}}`, `{{$block}}`).
 *
 * Name lookup reads own properties only, so `{{constructor}}` or `{{__proto__}}` resolve to nothing.
 * An object or array interpolated directly is inserted as its JSON text.
 *
 * Bounds: sections nest at most `MAX_TEMPLATE_DEPTH` deep (a `TemplateSyntaxError` otherwise), partials
 * `maxPartialDepth`, interpolated values `MAX_VALUE_DEPTH`; the output stops at `maxLength`, and the work at
 * `maxSteps` (section iterations, expansions and lookups).
 */
import {
  compileNodes,
  EMPTY_BLOCKS,
  type RenderOptions,
  type Run,
  type StepBudget,
  stepBudget
} from "./internal/MustacheCodegen.ts"
import { type Node, parse, type PartialReference } from "./internal/MustacheParser.ts"

export {
  MAX_VALUE_DEPTH,
  PartialDepthExceeded,
  type RenderOptions,
  RenderStepsExceeded,
  RenderTooLarge,
  type StepBudget,
  stepBudget,
  ValueTooDeep
} from "./internal/MustacheCodegen.ts"
export { MAX_TEMPLATE_DEPTH, type PartialReference, TemplateSyntaxError } from "./internal/MustacheParser.ts"

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" }
/** The HTML escaping the Mustache specification expects. */
const NEEDS_ESCAPE = /[&<>"]/
export const escapeHtml = (value: string): string =>
  NEEDS_ESCAPE.test(value) ? value.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c]) : value
export const noEscape = (value: string): string => value

/** Inserts `indent` at the start of every line of a template's source (standalone partials). */
const indentSource = (source: string, indent: string) => indent + source.replace(/\n(?!$)/g, `\n${indent}`)

export class Template {
  readonly source: string
  readonly nodes: ReadonlyArray<Node>
  /** The partials this template names directly, static and dynamic. */
  readonly partials: ReadonlyArray<PartialReference>
  /** The nodes compiled into generated code, once. */
  readonly run: Run
  private readonly indented = new Map<string, Template>()

  private constructor(source: string) {
    const { nodes, partials } = parse(source)
    this.source = source
    this.nodes = nodes
    this.partials = partials
    this.run = compileNodes(nodes)
  }

  /**
   * Compiles a template; throws `TemplateSyntaxError` for an unclosed section or tag, a bad delimiter, or
   * sections nested deeper than `MAX_TEMPLATE_DEPTH`.
   */
  static compile(source: string): Template {
    return new Template(source)
  }

  /** This template with every line indented, compiled once per indentation. */
  withIndent(indent: string): Template {
    if (indent.length === 0) return this
    let template = this.indented.get(indent)
    if (template === undefined) {
      template = Template.compile(indentSource(this.source, indent))
      this.indented.set(indent, template)
    }
    return template
  }

  /**
   * The template rendered against `view`. `base` is the output already produced by the same overall render
   * (earlier strings of a chat template), counted against `options.maxLength`; `budget` the steps it has
   * left (the same overall render passes one budget to all its strings), a new one of `options.maxSteps`
   * when not given.
   */
  render(view: unknown, options: RenderOptions, base = 0, budget: StepBudget = stepBudget(options)): string {
    const room = options.maxLength === undefined ? Infinity : options.maxLength - base
    return this.run([view], options, 0, EMPTY_BLOCKS, room, budget)
  }
}
