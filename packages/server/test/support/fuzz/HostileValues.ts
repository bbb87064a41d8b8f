/**
 * The values a fuzzed request is made of: strings, numbers and structures that have broken JSON APIs before
 * (NUL, lone surrogates, huge and deep inputs, template syntax, wrong types), each with a short label so a
 * failure says what was sent without printing megabytes.
 */
import fc from "fast-check"

/** A piece of JSON text: built as text because it is too deep to build as values, or not valid JSON at all. */
export interface RawJson {
  readonly _tag: "RawJson"
  readonly text: string
}

/**
 * A JSON document kept as a tree of entries rather than JS objects, so that duplicate keys and `__proto__`
 * survive until the text is written.
 */
export type JsonNode =
  | { readonly _tag: "Leaf"; readonly value: string | number | boolean | null }
  | { readonly _tag: "Array"; readonly items: ReadonlyArray<JsonNode> }
  | { readonly _tag: "Object"; readonly entries: ReadonlyArray<readonly [string, JsonNode]> }
  | RawJson

/** A value with what it is, for the failure report. */
export interface Labelled<A> {
  readonly label: string
  readonly value: A
}

export const raw = (text: string): RawJson => ({ _tag: "RawJson", text })
export const leaf = (value: string | number | boolean | null): JsonNode => ({ _tag: "Leaf", value })

/** A plain JSON value (as JSON.parse gives) as a tree. */
export const toNode = (value: unknown): JsonNode => {
  if (Array.isArray(value)) return { _tag: "Array", items: value.map(toNode) }
  if (value !== null && typeof value === "object") {
    return { _tag: "Object", entries: Object.entries(value).map(([k, v]) => [k, toNode(v)] as const) }
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return leaf(value)
  return leaf(null)
}

/** The JSON text of a tree. JSON.stringify escapes lone surrogates as \udXXX, as a careless client would send. */
export const writeJson = (node: JsonNode): string => {
  switch (node._tag) {
    case "RawJson":
      return node.text
    case "Leaf":
      return JSON.stringify(node.value) ?? "null"
    case "Array":
      return `[${node.items.map(writeJson).join(",")}]`
    case "Object":
      return `{${node.entries.map(([k, v]) => `${JSON.stringify(k)}:${writeJson(v)}`).join(",")}}`
  }
}

const labelled = <A>(label: string, value: A): Labelled<A> => ({ label, value })
const constants = <A>(...values: ReadonlyArray<Labelled<A>>) => fc.constantFrom(...values)

const nested = (depth: number, open: string, close: string, inner: string) =>
  `${open.repeat(depth)}${inner}${close.repeat(depth)}`

/** 10,000 levels is what broke parsers and recursive walkers before; smaller depths find lower limits. */
const DEPTHS = [64, 1_000, 10_000] as const

const label = (text: string) =>
  text.length > 40 ? `${JSON.stringify(text.slice(0, 30))}… (${text.length} chars)` : JSON.stringify(text)

/**
 * Strings that are hostile to storage, parsers, templates or logs, in groups weighted by what they have
 * broken before: text a database refuses first, then template syntax, then the rest.
 */
export const hostileString: fc.Arbitrary<Labelled<string>> = fc.oneof(
  {
    weight: 3,
    arbitrary: constants(
      labelled("NUL", "\u0000"),
      labelled("NUL inside", "a\u0000b"),
      labelled("lone high surrogate", "\ud800"),
      labelled("lone low surrogate inside", "x\udfffy"),
      labelled("reversed surrogates", "\udc00\ud800")
    )
  },
  {
    weight: 2,
    arbitrary: constants(
      labelled("3,000 nested sections", nested(3_000, "{{#a}}", "{{/a}}", "x")),
      labelled("20 nested sections", nested(20, "{{#a}}", "{{/a}}", "x")),
      labelled("unclosed section", "{{#a}}never closed"),
      labelled("stray close", "{{/a}}"),
      labelled("open tags", "{{".repeat(1_000)),
      labelled("self partial", "{{> self}}"),
      labelled("delimiter change", "{{=<% %>=}}<% a %>"),
      labelled("triple mustache", "{{{a}}}{{&b}}{{^c}}{{/c}}")
    )
  },
  constants(
    labelled("empty", ""),
    labelled("blank", "   "),
    labelled("NaN-ish", "NaN"),
    labelled("Infinity-ish", "-Infinity"),
    labelled("huge number text", "1e309"),
    labelled("__proto__", "__proto__"),
    labelled("dot-dot", "../.."),
    labelled("percent NUL", "%00"),
    labelled("bidi override", "\u202egnp.exe"),
    labelled("BOM", "\ufeff"),
    labelled("CRLF", "a\r\nb: c"),
    labelled("emoji", "😀👍🏽"),
    labelled("SQL", "' OR 1=1; --"),
    labelled("date garbage", "2024-13-45T25:61:61Z")
  ),
  fc.constantFrom(1_000, 100_000, 600_000).map((n) => labelled(`${n} chars`, "x".repeat(n))),
  fc.string({ unit: "binary", maxLength: 40 }).map((s) => labelled(`random ${label(s)}`, s)),
  fc.string({ unit: "grapheme", maxLength: 20 }).map((s) => labelled(`random ${label(s)}`, s))
)

/** Numbers at and beyond the edges of doubles and of the integer ranges the API declares. */
export const hostileNumber: fc.Arbitrary<Labelled<JsonNode>> = fc.oneof(
  constants(
    labelled("1e308", leaf(1e308)),
    labelled("-1e308", leaf(-1e308)),
    labelled("2^53+1", leaf(2 ** 53 + 1)),
    labelled("-1", leaf(-1)),
    labelled("0", leaf(0)),
    labelled("0.5", leaf(0.5)),
    labelled("5e-324", leaf(5e-324)),
    labelled("1e400 (overflows)", raw("1e400")),
    labelled("-1e400 (overflows)", raw("-1e400")),
    labelled("30-digit integer", raw("123456789012345678901234567890")),
    labelled("-0", raw("-0")),
    labelled("NaN literal (invalid JSON)", raw("NaN")),
    labelled("Infinity literal (invalid JSON)", raw("Infinity"))
  ),
  fc.integer().map((n) => labelled(`integer ${n}`, leaf(n))),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => labelled(`double ${n}`, leaf(n)))
)

/** Wrong types, and structures too deep or too wide for naive recursion. */
export const hostileStructure: fc.Arbitrary<Labelled<JsonNode>> = fc.oneof(
  constants(
    labelled("null", leaf(null)),
    labelled("true", leaf(true)),
    labelled("empty array", toNode([])),
    labelled("empty object", toNode({})),
    labelled("array of null", toNode([null])),
    labelled("object with empty key", raw("{\"\":null}")),
    labelled("object with __proto__", raw("{\"__proto__\":{\"polluted\":true}}")),
    labelled("object with constructor", raw("{\"constructor\":{\"prototype\":{\"polluted\":true}}}")),
    labelled("10,000-element array", raw(`[${Array(10_000).fill("0").join(",")}]`)),
    labelled("10,000-key object", raw(`{${Array.from({ length: 10_000 }, (_, i) => `"k${i}":${i}`).join(",")}}`))
  ),
  fc.constantFrom(...DEPTHS).chain((depth) =>
    constants(
      labelled(`${depth}-deep arrays`, raw(nested(depth, "[", "]", ""))),
      labelled(`${depth}-deep objects`, raw(nested(depth, "{\"a\":", "}", "1"))),
      labelled(`${depth}-deep mixed`, raw(nested(depth, "{\"a\":[", "]}", "1")))
    )
  ),
  fc.jsonValue({ maxDepth: 3 }).map((v) => labelled(`random JSON ${label(JSON.stringify(v))}`, toNode(v)))
)

/** Any hostile JSON value. */
export const hostileValue: fc.Arbitrary<Labelled<JsonNode>> = fc.oneof(
  { weight: 3, arbitrary: hostileString.map(({ label, value }) => labelled(label, leaf(value))) },
  { weight: 1, arbitrary: hostileNumber },
  { weight: 2, arbitrary: hostileStructure }
)

/**
 * A hostile value for the place of `node`: mostly of the same JSON type, so that it passes the schema and
 * reaches the code behind it, sometimes of any type.
 */
export const hostileValueFor = (node: JsonNode): fc.Arbitrary<Labelled<JsonNode>> => {
  const sameType = node._tag === "Leaf" && typeof node.value === "string"
    ? hostileString.map(({ label, value }) => labelled(label, leaf(value)))
    : node._tag === "Leaf" && typeof node.value === "number"
    ? hostileNumber
    : node._tag === "Object" || node._tag === "Array"
    ? hostileStructure
    : hostileValue
  return fc.oneof({ weight: 3, arbitrary: sameType }, { weight: 1, arbitrary: hostileValue })
}

/**
 * The few values behind most past failures, for the place of `node`: tried on every field of every
 * endpoint before any random run, so that these classes are found every time rather than by chance.
 */
export const classicValuesFor = (node: JsonNode): ReadonlyArray<Labelled<JsonNode>> => {
  const deep = labelled("10000-deep mixed", raw(nested(10_000, "{\"a\":[", "]}", "1")))
  if (node._tag === "Leaf" && typeof node.value === "number") {
    return [labelled("1e400 (overflows)", raw("1e400")), labelled("-1", leaf(-1))]
  }
  if (node._tag === "Object" || node._tag === "Array") {
    return [deep, labelled("object with a NUL key", raw("{\"\\u0000\":1}"))]
  }
  return [
    labelled("NUL inside", leaf("a\u0000b")),
    labelled("lone high surrogate", leaf("\ud800")),
    labelled("3,000 nested sections", leaf(nested(3_000, "{{#a}}", "{{/a}}", "x"))),
    // Cheap to send, and what a template compiler that copies section bodies cannot afford (2^20 copies).
    labelled("20 nested sections", leaf(nested(20, "{{#a}}", "{{/a}}", "x"))),
    ...(node._tag === "Leaf" && typeof node.value === "string" ? [] : [deep])
  ]
}

/** Keys for extra fields: the API's own names in the wrong place, prototype keys, and junk. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "",
    "\u0000",
    "\ud800",
    "id",
    "organisation_id",
    "workspace_id",
    "owner_id",
    "slug",
    "custom_host",
    "variables",
    "stream"
  ),
  fc.string({ maxLength: 12 })
)
