/**
 * Rendering: a template's nodes compiled into generated JavaScript, once, then run many times.
 *
 * Three bounds hold on every render, whatever the template and data: the output stops growing as soon as it
 * passes `maxLength` (checked where the generated code appends, so an oversized render never gets built);
 * the work stops as soon as it passes `maxSteps` (sections that emit nothing never reach the output bound,
 * and nested sections over a caller's lists multiply: three levels over 1,000 items are 10⁹ iterations);
 * and a value nested too deep to serialise is refused before `JSON.stringify` can overflow the stack.
 */
import { nestsDeeperThan } from "./jsonDepth.ts"
import type { Node, Path } from "./MustacheParser.ts"
import { toPath } from "./MustacheParser.ts"

export interface RenderOptions {
  /** Applied to `{{name}}` values; `{{{name}}}` and `{{& name}}` skip it. */
  readonly escape: (value: string) => string
  /**
   * Applied to every interpolated value after `escape`, whichever tag: the encoding of the output itself
   * (JSON-string escaping in a raw template), which no tag can turn off. None when undefined.
   */
  readonly encode?: ((value: string) => string) | undefined
  /** The partial of that name, or undefined when there is none. */
  readonly partial?: ((name: string) => Renderable | undefined) | undefined
  /** Called with the dotted name of every variable or section the data lacks. */
  readonly onMissing?: ((name: string) => void) | undefined
  /** Called with the variable name of a dynamic partial whose name the data lacks. */
  readonly onMissingPartialName?: ((variable: string) => void) | undefined
  /** Partials nested deeper than this throw `PartialDepthExceeded`. */
  readonly maxPartialDepth?: number | undefined
  /**
   * The longest output, in UTF-16 code units; the render throws `RenderTooLarge` at the first append that
   * passes it. Unbounded when undefined.
   */
  readonly maxLength?: number | undefined
  /**
   * The most steps a render may take (see `StepBudget` for what a step is); the render throws
   * `RenderStepsExceeded` at the first step past it. Unbounded when undefined.
   */
  readonly maxSteps?: number | undefined
}

/**
 * The steps a render may still take, shared by every piece of it (partials, blocks, every string of a chat
 * template). A step is a run of a section's body (once per item of a list), a block or partial expansion,
 * or a name lookup's search of one frame of the context stack. Between steps a render does work bounded by the template's own size, so the
 * steps bound the work of the whole render.
 */
export interface StepBudget {
  left: number
}

/** A new render's budget: `options.maxSteps`, or unbounded. */
export const stepBudget = (options: RenderOptions): StepBudget => ({ left: options.maxSteps ?? Infinity })

/** What a partial must offer the generated code: its compiled run, re-indented for standalone use. */
export interface Renderable {
  readonly withIndent: (indent: string) => { readonly run: Run }
}

export class PartialDepthExceeded extends Error {
  readonly depth: number
  constructor(depth: number) {
    super(`Partials are nested deeper than ${depth} levels`)
    this.depth = depth
  }
}

/** The output passed `RenderOptions.maxLength`; rendering stopped there. */
export class RenderTooLarge extends Error {
  readonly maxLength: number
  constructor(maxLength: number) {
    super(`The rendered text is longer than ${maxLength} characters`)
    this.maxLength = maxLength
  }
}

/** The render passed `RenderOptions.maxSteps`; rendering stopped there. */
export class RenderStepsExceeded extends Error {
  readonly maxSteps: number
  constructor(maxSteps: number) {
    super(`The render took more than ${maxSteps} steps`)
    this.maxSteps = maxSteps
  }
}

/** Objects and arrays interpolated as JSON text may nest this deep. */
export const MAX_VALUE_DEPTH = 100

/** An object or array to interpolate nests deeper than `MAX_VALUE_DEPTH`. */
export class ValueTooDeep extends Error {
  readonly variable: string
  constructor(variable: string) {
    super(`The value of '${variable}' nests deeper than ${MAX_VALUE_DEPTH} levels`)
    this.variable = variable
  }
}

/**
 * A compiled piece of a template: renders itself against the context stack. `room` is how much output it
 * may still produce: `maxLength` less what the whole render produced before it (Infinity when unbounded),
 * so that every piece, however nested, checks the one overall bound; `budget` is the render's one step
 * budget, which it leaves updated when it returns.
 */
export type Run = (
  stack: Array<unknown>,
  options: RenderOptions,
  depth: number,
  blocks: Blocks,
  room: number,
  budget: StepBudget
) => string
type Blocks = ReadonlyMap<string, Run>

export const EMPTY_BLOCKS: Blocks = new Map()

const NOT_FOUND = Symbol("not found")

/** A value as interpolated text: objects and arrays as their JSON. `name` is the variable's, for errors. */
const stringify = (value: unknown, name: string): string => {
  if (value === null || value === undefined) return ""
  if (typeof value === "string") return value
  if (typeof value === "object") {
    if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) throw new ValueTooDeep(name)
    return JSON.stringify(value)
  }
  return String(value)
}

const isFalsy = (value: unknown) => !value || (Array.isArray(value) && value.length === 0)

const tooLargeError = (options: RenderOptions): never => {
  throw new RenderTooLarge(options.maxLength!)
}

const tooManyStepsError = (options: RenderOptions): never => {
  throw new RenderStepsExceeded(options.maxSteps!)
}

/** The partial's name: fixed, or (for `{{>*name}}`) read from the data through a compiled lookup. */
const partialNameOf = (node: { readonly name: string; readonly dynamic: boolean }) => {
  if (!node.dynamic) return () => node.name
  const get = compileLookup(toPath(node.name))
  return (stack: ReadonlyArray<unknown>, options: RenderOptions): string | undefined => {
    const value = get(stack)
    if (value === NOT_FOUND || value === undefined || value === null) {
      options.onMissingPartialName?.(node.name)
      return undefined
    }
    return stringify(value, node.name)
  }
}

const hasOwnProperty = Object.prototype.hasOwnProperty

/** A name lookup compiled for its path: own properties only, the first segment searched up the stack. */
const compileLookup = (path: Path): (stack: ReadonlyArray<unknown>) => unknown => {
  if (path.length === 0) return (stack) => stack[stack.length - 1]
  const head = path[0]
  const findHead = (stack: ReadonlyArray<unknown>): unknown => {
    for (let i = stack.length - 1; i >= 0; i--) {
      const frame = stack[i]
      if (frame !== null && typeof frame === "object" && hasOwnProperty.call(frame, head)) {
        return (frame as Record<string, unknown>)[head]
      }
    }
    return NOT_FOUND
  }
  if (path.length === 1) return findHead
  const rest = path.slice(1)
  return (stack) => {
    let value = findHead(stack)
    if (value === NOT_FOUND) return NOT_FOUND
    for (const key of rest) {
      if (value === null || typeof value !== "object" || !hasOwnProperty.call(value, key)) return undefined
      value = (value as Record<string, unknown>)[key]
    }
    return value
  }
}

const EMPTY: Run = () => ""

/**
 * The longest section body, in characters of generated code, written out twice (for a list and for a
 * single value). Nested sections double the code only until it reaches this, then grow linearly.
 */
const DUPLICATED_BODY_MAX = 4_000

/**
 * A node list compiled into one generated function: text, variables and sections become straight-line code
 * (the closure per node this replaced was 0.6× wontache on sections); partials, blocks and parents call their
 * compiled closures. Template text, names and lookups enter the code only as constants (`k[i]`), never as
 * source, so no template can inject code.
 *
 * The size check follows every append of data (a variable, a partial, a block), ends every section
 * iteration and the function itself, and starts it (text appended unchecked before a partial must not let
 * recursion run on): `out.length` is a field read, so a clean render pays one comparison each. Template
 * text between checks is bounded by the template's own size.
 *
 * The step budget is a local counter (`steps`), taken from the shared `budget` on entry and handed back
 * around every call into another piece and on return: a subtraction and a comparison per lookup, iteration
 * and expansion, no call. A lookup costs the frames it searches (one when the name is on top of the stack).
 */
export const compileNodes = (nodes: ReadonlyArray<Node>): Run => {
  if (nodes.length === 0) return EMPTY
  const constants: Array<unknown> = []
  const constant = (value: unknown) => `k[${constants.push(value) - 1}]`
  let names = 0
  const missing = (node: { readonly name: string }) =>
    `if (options.onMissing !== undefined) options.onMissing(${constant(node.name)});`
  const check = "if (out.length > room) tooLarge(options);"
  const spend = (cost: string) => `if ((steps -= ${cost}) < 0) tooManySteps(options);`
  const emit = (list: ReadonlyArray<Node>): string => list.map(emitNode).join("\n")
  // `let v = <the value of path, or NF>`: a plain name is searched up the stack inline, as the spec's
  // commonest case, and pays for the frames it searched (all of them for a miss); dotted names call their
  // compiled lookup and pay for every frame it may search; `.` reads the top frame.
  const lookup = (v: string, path: Path) => {
    if (path.length === 0) return `let ${v} = stack[stack.length - 1]; ${spend("1")}`
    if (path.length !== 1) return `let ${v} = ${constant(compileLookup(path))}(stack); ${spend("stack.length")}`
    const j = `j${names++}`
    const frame = `f${names++}`
    const key = constant(path[0])
    return `let ${v} = NF; let ${j} = stack.length - 1;
      for (; ${j} >= 0; ${j}--) {
        const ${frame} = stack[${j}];
        if (${frame} !== null && typeof ${frame} === "object" && hasOwn.call(${frame}, ${key})) {
          ${v} = ${frame}[${key}]; break;
        }
      }
      ${spend(`stack.length - (${j} < 0 ? 0 : ${j})`)}`
  }
  const emitNode = (node: Node): string => {
    switch (node.kind) {
      case "text":
        return `out += ${constant(node.text)};`
      case "variable": {
        const v = `v${names++}`
        const asText = `(typeof ${v} === "string" ? ${v} : str(${v}, ${constant(node.name)}))`
        const escaped = node.escape ? `options.escape(${asText})` : asText
        const t = `t${names++}`
        return `{ ${lookup(v, node.path)} if (${v} === NF) { ${missing(node)} } else {
          const ${t} = ${escaped}; out += (encode === undefined ? ${t} : encode(${t})); ${check} } }`
      }
      case "section": {
        const v = `v${names++}`
        const i = `i${names++}`
        const many = `m${names++}`
        const count = `n${names++}`
        const body = emit(node.children)
        const found = `${lookup(v, node.path)} if (${v} === NF) { ${missing(node)} ${v} = undefined; }`
        if (node.inverted) return `{ ${found} if (falsy(${v})) { ${body} } }`
        // A list renders the body once per item, anything else truthy once with itself on the stack. A
        // small body is written out for each case, the faster code; a larger one once, so that nested
        // sections cannot double the code at every level.
        if (body.length <= DUPLICATED_BODY_MAX) {
          return `{ ${found}
            if (!falsy(${v})) {
              if (Array.isArray(${v})) {
                for (let ${i} = 0; ${i} < ${v}.length; ${i}++) {
                  ${spend("1")} stack.push(${v}[${i}]); ${body} stack.pop(); ${check}
                }
              } else { ${spend("1")} stack.push(${v}); ${body} stack.pop(); }
            } }`
        }
        return `{ ${found}
          if (!falsy(${v})) {
            const ${many} = Array.isArray(${v});
            const ${count} = ${many} ? ${v}.length : 1;
            for (let ${i} = 0; ${i} < ${count}; ${i}++) {
              ${spend("1")} stack.push(${many} ? ${v}[${i}] : ${v}); ${body} stack.pop(); ${check}
            }
          } }`
      }
      default: {
        // An expansion is a step; a dynamic name's lookup searches the stack too.
        const cost = node.kind !== "block" && node.dynamic ? "1 + stack.length" : "1"
        return `${spend(cost)} budget.left = steps;
          out += ${constant(compileNode(node))}(stack, options, depth, blocks, room - out.length, budget);
          steps = budget.left; ${check}`
      }
    }
  }
  const body = emit(nodes)
  const factory = new Function(
    "k",
    "NF",
    "str",
    "falsy",
    "hasOwn",
    "tooLarge",
    "tooManySteps",
    `"use strict"; return function run(stack, options, depth, blocks, room, budget) {
      if (room < 0) tooLarge(options);
      let out = "";
      let steps = budget.left;
      const encode = options.encode;
      ${body}
      ${check}
      budget.left = steps;
      return out; }`
  ) as (
    k: ReadonlyArray<unknown>,
    NF: symbol,
    str: typeof stringify,
    falsy: typeof isFalsy,
    hasOwn: typeof hasOwnProperty,
    tooLarge: typeof tooLargeError,
    tooManySteps: typeof tooManyStepsError
  ) => Run
  return factory(constants, NOT_FOUND, stringify, isFalsy, hasOwnProperty, tooLargeError, tooManyStepsError)
}

const checkDepth = (depth: number, options: RenderOptions) => {
  const max = options.maxPartialDepth ?? 100
  if (depth + 1 > max) throw new PartialDepthExceeded(max)
}

/** The template a partial or parent tag names in a render, checked to nest no deeper than allowed. */
const partialOf = (node: { readonly name: string; readonly dynamic: boolean }) => {
  const partialName = partialNameOf(node)
  return (stack: ReadonlyArray<unknown>, options: RenderOptions, depth: number) => {
    const name = partialName(stack, options)
    const partial = name === undefined ? undefined : options.partial?.(name)
    if (partial !== undefined) checkDepth(depth, options)
    return partial
  }
}

/** The nodes that stay closures inside generated code: partials, blocks and parents. */
function compileNode(node: Extract<Node, { readonly kind: "partial" | "block" | "parent" }>): Run {
  switch (node.kind) {
    case "partial": {
      const partialNamed = partialOf(node)
      return (stack, options, depth, blocks, room, budget) => {
        const partial = partialNamed(stack, options, depth)
        if (partial === undefined) return ""
        return partial.withIndent(node.indent).run(stack, options, depth + 1, blocks, room, budget)
      }
    }
    case "block": {
      const fallback = compileNodes(node.children)
      const { name } = node
      return (stack, options, depth, blocks, room, budget) =>
        (blocks.get(name) ?? fallback)(stack, options, depth, blocks, room, budget)
    }
    case "parent": {
      const own: Map<string, Run> = new Map([...node.blocks].map(([key, nodes]) => [key, compileNodes(nodes)]))
      const parentNamed = partialOf(node)
      return (stack, options, depth, blocks, room, budget) => {
        const parent = parentNamed(stack, options, depth)
        if (parent === undefined) return ""
        // Overrides from further out win over the ones this parent tag gives.
        let merged = blocks
        if (own.size > 0) {
          const next = new Map(own)
          for (const [key, value] of blocks) next.set(key, value)
          merged = next
        }
        return parent.withIndent(node.indent).run(stack, options, depth + 1, merged, room, budget)
      }
    }
  }
}
