/**
 * What the audit log stores must be storable whatever a caller sent: PostgreSQL's `text` and `jsonb` refuse
 * U+0000 and unpaired UTF-16 surrogates, and its JSON parser (like any recursive walk, ours included) runs out
 * of stack on deeply nested input. Such content is kept in a form that can be stored, and says so.
 */
import { type FieldPath, isSecretName, isSecretPair, REDACTED } from "../AuditRedaction.ts"
import { redactSecretValues } from "../SecretValues.ts"

/** Objects and arrays nested deeper than this are cut. */
export const MAX_DEPTH = 32
/** Characters of strings and object keys kept from one body, each other value counting as one; the rest is cut. */
export const MAX_TEXT = 65_536

/** U+0000, or a UTF-16 surrogate without its other half. */
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

const escapeUnit = (unit: string) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`

/**
 * `text` with each U+0000 and unpaired surrogate written out as the six characters of its JSON escape
 * (`\u0000`, `\ud800`): visible to a reader, storable everywhere. Undefined when nothing needed escaping.
 */
export const escapeUnstorable = (text: string): string | undefined => {
  UNSTORABLE.lastIndex = 0
  return UNSTORABLE.test(text) ? text.replace(UNSTORABLE, escapeUnit) : undefined
}

export interface Storable<A> {
  readonly value: A
  /** True when the value differs from what was received, beyond secret redaction. */
  readonly sanitized: boolean
}

/** A text field of a record, made storable. */
export const storableText = (text: string | null): Storable<string | null> => {
  const escaped = text === null ? undefined : escapeUnstorable(text)
  return escaped === undefined ? { value: text, sanitized: false } : { value: escaped, sanitized: true }
}

/** Defines an own property even for `__proto__`, which plain assignment would turn into a prototype change. */
const setOwn = (target: Record<string, unknown>, key: string, value: unknown) => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    target[key] = value
  }
}

/** The patterns that continue below `key`, and whether one of them ends at it. */
const descend = (paths: ReadonlyArray<FieldPath>, key: string) => {
  const next: Array<FieldPath> = []
  let ends = false
  for (const path of paths) {
    if (path[0] !== key && path[0] !== "*") continue
    if (path.length === 1) ends = true
    else next.push(path.slice(1))
  }
  return { next, ends }
}

/** The JSON value `text` holds, when it is an object or array. */
const parseJson = (text: string): unknown => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

/** Text that may be a JSON object or array: worth parsing to redact inside it. */
const JSON_CONTAINER = /^\s*[[{]/

/**
 * A request body as the audit log keeps it: secret fields replaced by `[REDACTED]` (the `secretFields` paths
 * first, then any secret-looking name), credentials inside strings too (`redactSecretValues`; a string that
 * holds a JSON object or array is parsed and redacted by these same rules, paths included, and kept as
 * JSON text), unstorable characters escaped, nesting beyond `MAX_DEPTH` and text beyond `MAX_TEXT` cut
 * with a marker, non-finite numbers as null. Recursion stops at `MAX_DEPTH`, so any
 * input is safe to walk.
 */
export const storableBody = (body: unknown, secretFields: ReadonlyArray<FieldPath> = []): Storable<unknown> => {
  let budget = MAX_TEXT
  let sanitized = false

  const text = (value: string): string => {
    const escaped = escapeUnstorable(value)
    let out = escaped ?? value
    if (escaped !== undefined) sanitized = true
    if (out.length > budget) {
      sanitized = true
      out = `${out.slice(0, budget)}…[truncated]`
    }
    budget = Math.max(0, budget - out.length)
    return out
  }

  let redactions = 0

  /** A string value: JSON inside it redacted as JSON, then credentials in the text, then made storable. */
  const stringValue = (value: string, depth: number, paths: ReadonlyArray<FieldPath>): string => {
    if (JSON_CONTAINER.test(value)) {
      const parsed = parseJson(value)
      if (parsed !== undefined) {
        const before = { budget, sanitized, redactions }
        const walked = walk(parsed, depth + 1, paths)
        // Kept as sent unless something in it was secret: re-encoding would change its spacing for nothing.
        if (redactions > before.redactions) return JSON.stringify(walked)
        ;({ budget, redactions, sanitized } = before)
      }
    }
    const secretHere = (name: string) => descend(paths, name).ends || isSecretName(name)
    const redacted = redactSecretValues(value, secretHere)
    if (redacted !== undefined) redactions++
    return text(redacted ?? value)
  }

  const walk = (value: unknown, depth: number, paths: ReadonlyArray<FieldPath>): unknown => {
    if (typeof value === "string") return stringValue(value, depth, paths)
    if (typeof value !== "object" || value === null) {
      // Numbers, booleans and null count too, so a body of a million small values is cut as well.
      budget = Math.max(0, budget - 1)
    }
    if (value === null || typeof value === "boolean") return value
    if (typeof value === "number") {
      if (Number.isFinite(value)) return value
      sanitized = true
      return null
    }
    if (typeof value !== "object") {
      // Not JSON (undefined, bigint, a function): kept as text, as JSON has no such value.
      sanitized = true
      return value === undefined ? null : text(String(value))
    }
    if (depth >= MAX_DEPTH) {
      sanitized = true
      return `[truncated: nested deeper than ${MAX_DEPTH} levels]`
    }
    if (Array.isArray(value)) {
      const out: Array<unknown> = []
      const { next, ends } = descend(paths, "*")
      for (const [index, item] of value.entries()) {
        if (budget === 0) {
          sanitized = true
          out.push(`[truncated: ${value.length - index} more items]`)
          break
        }
        if (ends && item !== null) redactions++
        out.push(ends && item !== null ? REDACTED : walk(item, depth + 1, next))
      }
      return out
    }
    const entries = Object.entries(value)
    const redactValue = isSecretPair(value as Record<string, unknown>)
    const out: Record<string, unknown> = {}
    for (const [index, [key, inner]] of entries.entries()) {
      if (inner === undefined) continue
      if (budget === 0) {
        sanitized = true
        setOwn(out, "…", `[truncated: ${entries.length - index} more fields]`)
        break
      }
      let stored = text(key)
      // Two keys that escape to the same text both stay.
      while (Object.hasOwn(out, stored)) stored = `${stored}~`
      const { next, ends } = descend(paths, key)
      // Where the schema describes a field's inside, it decides what in there is secret, not the field's name.
      const secret = ends || (next.length === 0 && isSecretName(key)) || (redactValue && key === "value")
      if (secret && inner !== null) redactions++
      setOwn(out, stored, secret && inner !== null ? REDACTED : walk(inner, depth + 1, next))
    }
    return out
  }

  const value = walk(body, 0, secretFields)
  return { value, sanitized }
}
