import { describe, expect, it } from "vitest"
import { jsonProblem, MAX_JSON_DEPTH, textProblem } from "../src/shared/InputRules.ts"

/** `depth` nested objects around `leaf`, built without recursion (and without JSON.parse's stack). */
const nested = (depth: number, leaf: unknown = 1): unknown => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe("textProblem", () => {
  it("accepts ordinary text, emoji (surrogate pairs) included", () => {
    for (const text of ["", "plain", "accents: é ü ß", "emoji 😀 and 👩‍👩‍👧", "tab\tand\nnewline"]) {
      expect(textProblem(text)).toBeUndefined()
    }
  })

  it("refuses NUL and lone surrogates, high or low, anywhere", () => {
    expect(textProblem("a\u0000b")).toContain("NUL")
    expect(textProblem("\u0000")).toContain("NUL")
    expect(textProblem("end \ud83d")).toContain("U+D83D")
    expect(textProblem("\ude00 start")).toContain("U+DE00")
    expect(textProblem("pair 😀 then lone \ud800x")).toContain("U+D800")
    expect(textProblem("reversed \ude00\ud83d")).toContain("lone surrogate")
  })
})

describe("jsonProblem", () => {
  it("accepts well-formed values of any shape", () => {
    for (const value of [null, 1, true, "text", [], {}, { a: [1, "b", { c: null }] }, nested(MAX_JSON_DEPTH)]) {
      expect(jsonProblem(value)).toBeUndefined()
    }
  })

  it("names the refused string by its path", () => {
    expect(jsonProblem({ name: "a\u0000" })).toMatchObject({ _tag: "InvalidRequest", param: "name" })
    expect(jsonProblem({ a: { b: ["ok", "bad\ud800"] } })?.param).toBe("a.b[1]")
    expect(jsonProblem([{ x: "\u0000" }])?.param).toBe("[0].x")
    expect(jsonProblem({ api_key: "\u0000" }, "x-service-config")?.param).toBe("x-service-config.api_key")
    expect(jsonProblem("\u0000", "x-service-config")?.param).toBe("x-service-config")
    const message = jsonProblem({ a: { b: "\u0000" } })?.message
    expect(message).toBe("a.b: must not contain the NUL character (U+0000).")
  })

  it("refuses keys with NUL or lone surrogates, naming the object that holds them", () => {
    expect(jsonProblem({ meta: { ["k\u0000"]: 1 } })).toMatchObject({ param: "meta" })
    expect(jsonProblem({ ["\ud800"]: 1 })).toMatchObject({ param: null })
  })

  it("allows MAX_JSON_DEPTH levels and refuses one more, naming the top-level field", () => {
    expect(jsonProblem(nested(MAX_JSON_DEPTH))).toBeUndefined()
    expect(jsonProblem({ template_metadata: nested(MAX_JSON_DEPTH - 1) })).toBeUndefined()
    const refused = jsonProblem({ template_metadata: nested(MAX_JSON_DEPTH) })
    expect(refused).toMatchObject({ param: "template_metadata" })
    expect(refused?.message).toContain(`${MAX_JSON_DEPTH} levels`)
    expect(jsonProblem({ list: [[[nested(MAX_JSON_DEPTH)]]] })?.param).toBe("list")
  })

  it("walks any depth without recursion", () => {
    expect(jsonProblem(nested(1_000_000))).toMatchObject({ param: "a" })
    let deepArray: unknown = "leaf"
    for (let i = 0; i < 1_000_000; i++) deepArray = [deepArray]
    expect(jsonProblem(deepArray)).toMatchObject({ param: "[0]" })
  })
})
