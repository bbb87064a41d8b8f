/**
 * The text and JSON the service accepts from clients, wherever they arrive: path, query, body, or any
 * other part of a request that carries JSON. Two kinds of input are refused with a 400 naming the field:
 *
 * - text with the NUL character or a lone surrogate: PostgreSQL refuses NUL in `text` and `\u0000` or an
 *   unpaired surrogate in `jsonb`, so without this rule the same request was stored by the memory store
 *   and answered 500 by the SQL stores;
 * - JSON nested deeper than `MAX_JSON_DEPTH`: code that walks JSON recursively (secret redaction for the
 *   audit log, canonical JSON for its hash chain, rendering) overflowed the stack on 10,000 levels.
 *
 * The walk below is iterative, so it is safe on any depth, and visits each value once.
 */
import { InvalidRequest } from "./Errors.ts"

/**
 * The deepest accepted nesting of JSON input, counting the outermost object or array as level 1: a request
 * body's fields sit at level 2. Real payloads (chat messages with content parts, tool schemas, template
 * metadata) stay well under 20; 64 leaves room and keeps every recursive walk far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64

const SUSPECT = /[\0\uD800-\uDFFF]/

/** Why a text is refused, or undefined when it is accepted. */
export const textProblem = (text: string): string | undefined => {
  // One native scan for the common case; the loop below only runs on text with NUL or surrogates.
  if (!SUSPECT.test(text)) return undefined
  if (text.includes("\0")) return "must not contain the NUL character (U+0000)"
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0xd800 || unit > 0xdfff) continue
    const next = text.charCodeAt(i + 1)
    if (unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      i++
      continue
    }
    return `must be well-formed Unicode: it has a lone surrogate (U+${unit.toString(16).toUpperCase()})`
  }
  return undefined
}

interface Frame {
  readonly value: object
  readonly depth: number
  readonly parent: Frame | undefined
  readonly key: string | number
}

/** `root`, then the keys down to `frame` and `key`: `template_metadata.a[2].b`, the envelope's `param`. */
const pathOf = (root: string | null, frame: Frame, key?: string | number): string | null => {
  const keys: Array<string | number> = key === undefined ? [] : [key]
  for (let at: Frame | undefined = frame; at?.parent !== undefined; at = at.parent) keys.push(at.key)
  let path = root ?? ""
  for (let i = keys.length - 1; i >= 0; i--) {
    const segment = keys[i]!
    path += typeof segment === "number" ? `[${segment}]` : path.length === 0 ? segment : `.${segment}`
  }
  return path.length === 0 ? null : path
}

const refused = (param: string | null, problem: string) =>
  InvalidRequest.of(param === null ? `The JSON value ${problem}.` : `${param}: ${problem}.`, param)

/** The top-level field holding `frame`: where a too-deep value is reported (its full path can be 64 keys long). */
const topLevelOf = (root: string | null, frame: Frame): string | null => {
  let at = frame
  while (at.parent?.parent !== undefined) at = at.parent
  return pathOf(root, at)
}

/** Checks a string member now; queues an object or array member for the walk. */
const visit = (
  stack: Array<Frame>,
  root: string | null,
  frame: Frame,
  inner: unknown,
  key: string | number
): InvalidRequest | undefined => {
  if (typeof inner === "string") {
    const problem = textProblem(inner)
    return problem === undefined ? undefined : refused(pathOf(root, frame, key), problem)
  }
  if (typeof inner === "object" && inner !== null) {
    stack.push({ value: inner, depth: frame.depth + 1, parent: frame, key })
  }
  return undefined
}

/**
 * The first refused part of a parsed JSON value, or undefined when all of it is accepted. `root` names the
 * value in `param` (the name the caller gave it); a request body has none, so its fields are named alone.
 */
export const jsonProblem = (value: unknown, root: string | null = null): InvalidRequest | undefined => {
  if (typeof value === "string") {
    const problem = textProblem(value)
    return problem === undefined ? undefined : refused(root, problem)
  }
  if (typeof value !== "object" || value === null) return undefined
  const stack: Array<Frame> = [{ value, depth: 1, parent: undefined, key: "" }]
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if (frame.depth > MAX_JSON_DEPTH) {
      return refused(
        topLevelOf(root, frame),
        `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays (the outermost counts as one)`
      )
    }
    let problem: InvalidRequest | undefined
    if (Array.isArray(frame.value)) {
      for (let i = 0; i < frame.value.length && problem === undefined; i++) {
        problem = visit(stack, root, frame, frame.value[i], i)
      }
    } else {
      const record = frame.value as Record<string, unknown>
      for (const key of Object.keys(record)) {
        const keyProblem = textProblem(key)
        if (keyProblem !== undefined) return refused(pathOf(root, frame), `has a key that ${keyProblem}`)
        problem = visit(stack, root, frame, record[key], key)
        if (problem !== undefined) break
      }
    }
    if (problem !== undefined) return problem
  }
  return undefined
}
