/**
 * Upstream text made storable and bounded: escapes, cuts that never split a surrogate pair, and JSON walked
 * to a bounded depth and size whatever its shape.
 */
import { describe, expect, it } from "vitest"
import { MAX_JSON_DEPTH, textProblem } from "../src/shared/InputRules.ts"
import { untrustedJson, untrustedText } from "../src/shared/UntrustedText.ts"

describe("untrustedText", () => {
  it("escapes NUL, lone surrogates and control characters, and keeps tab, newlines and pairs", () => {
    expect(untrustedText(100)("a\u0000b\ud800c\udfffd\u001b[0m\u007f\u0085")).toBe(
      "a\\u0000b\\ud800c\\udfffd\\u001b[0m\\u007f\\u0085"
    )
    expect(untrustedText(100)("tab\there\nline\r😀")).toBe("tab\there\nline\r😀")
  })

  it("cuts at the bound with a mark, never between the halves of a pair", () => {
    const cut = untrustedText(4)("ab😀cd")
    expect(cut).toBe("ab…")
    expect(textProblem(cut)).toBeUndefined()
    expect(untrustedText(10)("x".repeat(100_000))).toHaveLength(10)
    expect(untrustedText(10)("\u0000".repeat(100)).length).toBeLessThanOrEqual(10)
  })

  it("writes what is not a string as text", () => {
    expect(untrustedText(10)(42)).toBe("42")
  })
})

describe("untrustedJson", () => {
  it("repairs keys and strings at every level, and keeps numbers, booleans and null", () => {
    const repaired = untrustedJson(JSON.parse("{\"k\\u0000\":[\"\\ud800\",1,true,null,{\"__proto__\":\"x\"}]}"), 1_000)
    expect(JSON.stringify(repaired)).toBe("{\"k\\\\u0000\":[\"\\\\ud800\",1,true,null,{\"__proto__\":\"x\"}]}")
    // `__proto__` stays a key: no prototype is changed.
    const inner = (Object.values(repaired as object)[0] as Array<object>)[4]
    expect([Object.hasOwn(inner, "__proto__"), Object.getPrototypeOf(inner)]).toEqual([true, Object.prototype])
  })

  it("cuts nesting past the JSON depth rule, safe on any depth", () => {
    let deep: unknown = 1
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const repaired = JSON.stringify(untrustedJson(deep, 1_000))
    expect(repaired).toContain(`[cut: nested deeper than ${MAX_JSON_DEPTH} levels]`)
    expect(repaired.split("[").length - 1).toBeLessThanOrEqual(MAX_JSON_DEPTH + 1)
  })

  it("bounds the text as a whole", () => {
    const wide = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`k${i}`, "v".repeat(100)]))
    const repaired = JSON.stringify(untrustedJson(wide, 1_000))
    expect(repaired.length).toBeLessThan(2_000)
    expect(repaired).toContain("more fields]")
  })
})
