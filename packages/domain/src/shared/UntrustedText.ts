/**
 * Text and JSON that come from an upstream server (an MCP server's names, descriptions, schemas and error
 * messages; a provider's answer) are untrusted input, held to the same storable-text rule as request bodies
 * (InputRules.ts). A request's bad text is refused with a 400; an upstream's cannot be sent back, so it is
 * repaired where it enters the domain, at the port: every service behind the port then holds only text that
 * every store can keep and every reader can show.
 *
 * - U+0000 and lone UTF-16 surrogates (PostgreSQL refuses both in `text` and `jsonb`), and the other control
 *   characters but tab, line feed and carriage return (terminal escapes in a tool's name), are written as
 *   their JSON escape (`\u0000`): visible, and storable everywhere.
 * - Length is bounded: the text is cut at `max` characters, never between the halves of a surrogate pair,
 *   and ends with `…` when cut.
 * - JSON is walked without recursion limits of its own: nesting beyond `MAX_JSON_DEPTH` is replaced by a
 *   marker, its text (keys and strings) is bounded as a whole, and what JSON has no value for (NaN, functions)
 *   becomes null.
 */
import { MAX_JSON_DEPTH } from "./InputRules.ts"

/** Control characters but tab, LF and CR; DEL and C1; and each UTF-16 surrogate without its other half. */
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

const escapeUnit = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`

/** The mark at the end of cut text. */
export const CUT_MARK = "…"

/** `text` cut to at most `max` characters (the mark included), never inside a surrogate pair. */
const cut = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = Math.max(0, max - CUT_MARK.length)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}${CUT_MARK}`
}

/**
 * Upstream text as the domain keeps it: unsafe characters escaped, at most `max` characters. Any value that
 * is not a string is first written as text (an adapter's types are a promise the upstream did not make).
 */
export const untrustedText = (max: number) => (value: unknown): string => {
  const text = typeof value === "string" ? value : String(value)
  // Cut before escaping so that a huge text costs no more than `max` to repair, and after, as escapes lengthen it.
  const bounded = cut(text, max)
  UNSAFE.lastIndex = 0
  return cut(bounded.replace(UNSAFE, escapeUnit), max)
}

/** Upstream text that may be absent: null stays null. */
export const untrustedOptionalText = (max: number) => {
  const text = untrustedText(max)
  return (value: unknown): string | null => (value === null || value === undefined ? null : text(value))
}

/** Defines an own property even for `__proto__`, which plain assignment would turn into a prototype change. */
const setOwn = (target: Record<string, unknown>, key: string, value: unknown) => {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * An upstream JSON value as the domain keeps it: strings and keys escaped as `untrustedText` does, at most
 * `maxText` characters of them in all (each other value counting as one; the rest is cut with a marker),
 * nesting beyond `MAX_JSON_DEPTH` replaced by a marker, and non-JSON values as null.
 */
export const untrustedJson = (value: unknown, maxText: number): unknown => {
  let budget = maxText
  const text = (raw: string) => {
    const out = untrustedText(Math.max(1, budget))(raw)
    budget = Math.max(0, budget - out.length)
    return out
  }
  const walk = (node: unknown, depth: number): unknown => {
    if (typeof node === "string") return text(node)
    budget = Math.max(0, budget - 1)
    if (node === null || typeof node === "boolean") return node
    if (typeof node === "number") return Number.isFinite(node) ? node : null
    if (typeof node !== "object") return null
    if (depth > MAX_JSON_DEPTH) return `[cut: nested deeper than ${MAX_JSON_DEPTH} levels]`
    if (Array.isArray(node)) {
      const out: Array<unknown> = []
      for (const [index, item] of node.entries()) {
        if (budget === 0) {
          out.push(`[cut: ${node.length - index} more items]`)
          break
        }
        out.push(walk(item, depth + 1))
      }
      return out
    }
    const out: Record<string, unknown> = {}
    const entries = Object.entries(node)
    for (const [index, [key, inner]] of entries.entries()) {
      if (budget === 0) {
        setOwn(out, CUT_MARK, `[cut: ${entries.length - index} more fields]`)
        break
      }
      let stored = text(key)
      // Two keys that repair to the same text both stay.
      while (Object.hasOwn(out, stored)) stored = `${stored}~`
      setOwn(out, stored, walk(inner, depth + 1))
    }
    return out
  }
  return walk(value, 1)
}
