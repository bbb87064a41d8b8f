/**
 * The measures behind the render bounds, against Node's own: UTF-8 length against `Buffer.byteLength`,
 * the JSON size decision against serialising and counting, nesting depth without recursion.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { nestsDeeperThan } from "../src/prompts/internal/jsonDepth.ts"
import { jsonLargerThan, MAX_BYTES_PER_UNIT, utf8Length } from "../src/prompts/internal/renderedSize.ts"

const RUNS = { numRuns: 2000 }
/** Any UTF-16 text, lone surrogates and control characters included. */
const anyText = fc.string({ unit: "binary" })
const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8")

describe("utf8Length", () => {
  it("agrees with Buffer.byteLength on any text", () => {
    fc.assert(fc.property(anyText, (text) => utf8Length(text) === Buffer.byteLength(text, "utf8")), RUNS)
  })
})

describe("jsonLargerThan", () => {
  it("decides exactly whether a rendered string's JSON passes the bound", () => {
    fc.assert(
      fc.property(
        anyText,
        fc.nat(200),
        fc.integer({ min: 1, max: 5 }),
        (text, max, source) => jsonLargerThan(text, text.length + source, max) === jsonBytes(text) > max
      ),
      RUNS
    )
  })

  it("decides exactly for structures, given their source's length", () => {
    const messages = fc.array(fc.record({ role: fc.constantFrom("user", "system"), content: anyText }), {
      minLength: 1
    })
    fc.assert(
      fc.property(messages, fc.nat(400), (list, max) => {
        const rendered = list.reduce((sum, m) => sum + m.content.length, 0)
        const source = JSON.stringify(list.map((m) => ({ ...m, content: "" }))).length
        return jsonLargerThan(list, rendered + source, max) === jsonBytes(list) > max
      }),
      RUNS
    )
  })

  it("does not serialise what cannot pass the bound", () => {
    const unserialisable = { toJSON: () => expect.unreachable("serialised") }
    expect(jsonLargerThan(unserialisable, 10, 10 * MAX_BYTES_PER_UNIT)).toBe(false)
  })
})

describe("nestsDeeperThan", () => {
  it.each([
    [1, 0],
    ["text", 0],
    [null, 0],
    [[], 1],
    [{}, 1],
    [[1, [2, { a: [3] }]], 4],
    [{ a: 1, b: { c: { d: {} } }, e: [] }, 4]
  ])("measures %j as %i deep", (value, depth) => {
    expect(nestsDeeperThan(value, depth)).toBe(false)
    if (depth > 0) expect(nestsDeeperThan(value, depth - 1)).toBe(true)
  })

  it("measures values far deeper than the stack allows", () => {
    const deep = JSON.parse(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)
    expect(nestsDeeperThan(deep, 199_999)).toBe(true)
    expect(nestsDeeperThan(deep, 200_000)).toBe(false)
  })
})
