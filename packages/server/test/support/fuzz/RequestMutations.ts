/**
 * Mutations of the parts of a request around the body: query strings, path ids and headers. Query and path
 * values are produced already percent-encoded (or deliberately mis-encoded), as they go on the wire.
 */
import fc from "fast-check"
import type { Labelled } from "./HostileValues.ts"

const labelled = <A>(label: string, value: A): Labelled<A> => ({ label, value })

/** encodeURIComponent, except that it cannot throw (lone surrogates become U+FFFD). */
export const encode = (text: string) => encodeURIComponent(text.replace(/[\ud800-\udfff]/gu, "\ufffd"))

const random = (maxLength: number) =>
  fc.string({ unit: "binary", maxLength }).map((s) => labelled(`random ${JSON.stringify(s)}`, encode(s)))

const long = (...lengths: ReadonlyArray<number>) =>
  fc.constantFrom(...lengths).map((n) => labelled(`${n} chars`, "x".repeat(n)))

/** Encoded query values: NUL, bad percent-encoding, dates and numbers out of any range. */
export const hostileQueryValue: fc.Arbitrary<Labelled<string>> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      labelled("NUL", "%00"),
      labelled("NUL inside", "a%00b"),
      labelled("lone surrogate as UTF-8", "%ED%A0%80"),
      labelled("truncated escape", "%"),
      labelled("invalid escape", "%ZZ"),
      labelled("invalid UTF-8", "%FF%FE"),
      labelled("empty", ""),
      labelled("garbage", "garbage"),
      labelled("month 13", "2024-13-45"),
      labelled("hour 25", "2024-01-01T25:61:61Z"),
      labelled("year 0", "0000-00-00T00:00:00Z"),
      labelled("beyond Date range", "275760-09-13T00:00:01Z"),
      labelled("negative year", "-271821-04-20T00:00:00Z"),
      labelled("epoch millis", "1700000000000"),
      labelled("-1", "-1"),
      labelled("0", "0"),
      labelled("1001", "1001"),
      labelled("20 digits", "99999999999999999999"),
      labelled("1e400", "1e400"),
      labelled("1.5", "1.5"),
      labelled("NaN", "NaN"),
      labelled("Infinity", "Infinity"),
      labelled("hex", "0x10"),
      labelled("leading space", "%201"),
      labelled("array-ish", "%5B%5D"),
      labelled("__proto__", "__proto__")
    )
  },
  long(1_000, 6_000),
  random(30)
)

/** Query values tried on every declared parameter before any random run. */
export const classicQueryValues: ReadonlyArray<Labelled<string>> = [
  labelled("NUL", "%00"),
  labelled("garbage", "garbage"),
  labelled("-1", "-1"),
  labelled("20 digits", "99999999999999999999")
]

/** Query parameter names nobody declared, and declared ones in odd spellings. */
const unknownParameter: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("unknown", "__proto__", "constructor", "%00", "page_size%5B%5D", "a%5Bb%5D", "PAGE_SIZE", ""),
  random(12).map((l) => l.value)
)

/** Whole query strings that are not key=value pairs at all. */
const garbageQuery: fc.Arbitrary<Labelled<string>> = fc.oneof(
  fc.constantFrom(
    labelled("ampersands", "&&&"),
    labelled("equals signs", "==&="),
    labelled("bare percent", "%"),
    labelled("key without value", "page_size"),
    labelled("second question mark", "?page_size=1"),
    labelled("semicolons", "page_size=1;current_page=2")
  ),
  random(40)
)

type Pairs = ReadonlyArray<readonly [string, string]>
type QueryChange = (pairs: Pairs) => Labelled<Pairs | string>

/**
 * Mutations of the query: values of declared parameters replaced, parameters dropped, repeated or added,
 * or the whole string replaced with garbage. Answers the query string to send (without `?`).
 */
export const queryMutation = (
  declared: ReadonlyArray<string>,
  example: Readonly<Record<string, string>>
): fc.Arbitrary<Labelled<string>> => {
  const names = [...new Set([...declared, ...Object.keys(example)])]
  const name = names.length > 0 ? fc.constantFrom(...names) : unknownParameter
  const changes: Array<fc.Arbitrary<QueryChange>> = [
    fc.tuple(name, hostileQueryValue).map(([key, value]): QueryChange => (pairs) => ({
      label: `?${key} := ${value.label}`,
      value: [...pairs.filter(([k]) => k !== key), [key, value.value]]
    })),
    fc.tuple(name, hostileQueryValue).map(([key, value]): QueryChange => (pairs) => ({
      label: `?${key} repeated with ${value.label}`,
      value: [...pairs, [key, value.value]]
    })),
    fc.tuple(unknownParameter, hostileQueryValue).map(([key, value]): QueryChange => (pairs) => ({
      label: `unknown ?${key} := ${value.label}`,
      value: [...pairs, [key, value.value]]
    })),
    garbageQuery.map((garbage): QueryChange => () => ({ label: `query := ${garbage.label}`, value: garbage.value }))
  ]
  if (Object.keys(example).length > 0) {
    changes.push(
      fc.constantFrom(...Object.keys(example)).map((key): QueryChange => (pairs) => ({
        label: `?${key} dropped`,
        value: pairs.filter(([k]) => k !== key)
      }))
    )
  }
  const start: Pairs = Object.entries(example).map(([k, v]) => [k, encode(v)] as const)
  return fc.array(fc.oneof(...changes), { minLength: 1, maxLength: 3 }).map((list) => {
    let pairs: Pairs | string = start
    const labels: Array<string> = []
    for (const change of list) {
      // Once the whole string is garbage, later pair changes append to nothing sensible; keep the garbage.
      if (typeof pairs === "string") break
      const changed = change(pairs)
      pairs = changed.value
      labels.push(changed.label)
    }
    return labelled(labels.join("; "), typeof pairs === "string" ? pairs : toQuery(pairs))
  })
}

export const toQuery = (pairs: Pairs) => pairs.map(([k, v]) => `${k}=${v}`).join("&")

/** Path segments that are ids nobody made: NUL, traversal, bad escapes, lone surrogates, huge. */
export const hostilePathId: fc.Arbitrary<Labelled<string>> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      labelled("NUL", "%00"),
      labelled("NUL inside", "a%00b"),
      labelled("dot-dot", ".."),
      labelled("dot", "."),
      labelled("encoded dot-dot", "%2e%2e"),
      labelled("encoded traversal", "..%2f..%2f..%2fetc%2fpasswd"),
      labelled("encoded slash", "a%2Fb"),
      labelled("truncated escape", "%"),
      labelled("invalid escape", "%ZZ"),
      labelled("invalid UTF-8", "%FF"),
      labelled("overlong slash", "%C0%AF"),
      labelled("lone surrogate as UTF-8", "%ED%A0%80"),
      labelled("space", "%20"),
      labelled("plus", "+"),
      labelled("at latest", "x@latest"),
      labelled("bare at", "@"),
      labelled("at zero", "x@0"),
      labelled("at negative", "x@-1"),
      labelled("at 20 digits", "x@99999999999999999999"),
      labelled("two ats", "a@b@c"),
      labelled("nil UUID", "00000000-0000-0000-0000-000000000000"),
      labelled("route syntax", ":id"),
      labelled("star", "*")
    )
  },
  // 20,000 makes a request head beyond Node's default 16 KB header limit.
  long(300, 4_000, 8_000, 20_000),
  fc.uuid().map((u) => labelled(`random UUID ${u}`, u)),
  random(30)
)

/** Path ids tried on every path parameter before any random run. */
export const classicPathIds: ReadonlyArray<Labelled<string>> = [
  labelled("NUL", "%00"),
  labelled("lone surrogate as UTF-8", "%ED%A0%80"),
  labelled("dot-dot", ".."),
  labelled("20000 chars", "x".repeat(20_000))
]

/** Content types beside plain JSON: JSON with a vendor suffix, other charsets, other media types. */
export const hostileContentType: fc.Arbitrary<Labelled<string | undefined>> = fc.constantFrom(
  labelled("no content-type", undefined),
  labelled("content-type application/vnd.x+json", "application/vnd.x+json"),
  labelled("content-type application/problem+json", "application/problem+json"),
  labelled("content-type text/plain", "text/plain"),
  labelled("content-type text/json", "text/json"),
  labelled("content-type JSON in UTF-16", "application/json; charset=utf-16"),
  labelled("content-type JSON in latin1", "application/json; charset=latin1"),
  labelled("content-type upper case", "APPLICATION/JSON"),
  labelled("content-type with an empty parameter", "application/json;"),
  labelled("content-type with spaces", "application/json ; charset=utf-8"),
  labelled("content-type application/jsonx", "application/jsonx"),
  labelled("content-type form", "application/x-www-form-urlencoded"),
  labelled("content-type multipart", "multipart/form-data; boundary=x"),
  labelled("content-type empty", ""),
  labelled("content-type */*", "*/*")
)

/** Header values a client can send: visible Latin-1, since Node refuses control characters in headers. */
export const headerText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((c) =>
      String.fromCharCode(c)
    ),
    maxLength
  })
