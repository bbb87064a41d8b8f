/**
 * Names as a header value (adapters-http/src/internal/headerList.ts): any name fits once percent-encoded,
 * and the list is bounded in names and in characters. The render route's use is tested end to end in
 * TemplateSafety.test.ts; these are the cases a saved template cannot reach.
 */
import { describe, expect, it } from "vitest"
import {
  encodedHeaderList,
  MAX_HEADER_LIST_ITEMS,
  MAX_HEADER_LIST_LENGTH,
  percentEncoded
} from "../../adapters-http/src/internal/headerList.ts"

/** What Node accepts in a header value. */
const VALID_HEADER_VALUE = /^[\t\x20-\x7e]*$/

describe("percentEncoded", () => {
  it("writes a lone surrogate as U+FFFD, as UTF-8 does, rather than throwing", () => {
    expect(percentEncoded("a\ud800b")).toBe("a%EF%BF%BDb")
    expect(percentEncoded("\udc00")).toBe("%EF%BF%BD")
    expect(percentEncoded("😀")).toBe("%F0%9F%98%80")
  })

  it("leaves what encodeURIComponent leaves: letters, digits and -_.!~*'()", () => {
    expect(percentEncoded("user.first_name-2")).toBe("user.first_name-2")
  })
})

describe("encodedHeaderList", () => {
  it("always makes a valid header value", () => {
    const names = ["\r\n", "\u0000", "a,b", "é", "\ud800", " "]
    const { omitted, value } = encodedHeaderList(names)
    expect(value).toMatch(VALID_HEADER_VALUE)
    expect(value.split(",")).toHaveLength(names.length)
    expect(omitted).toBe(0)
  })

  it(`lists at most ${MAX_HEADER_LIST_ITEMS} names`, () => {
    const names = Array.from({ length: MAX_HEADER_LIST_ITEMS + 1 }, (_, i) => String(i))
    expect(encodedHeaderList(names)).toEqual({ value: names.slice(0, -1).join(","), omitted: 1 })
  })

  it(`stops at the first name that would pass ${MAX_HEADER_LIST_LENGTH} characters, even the first`, () => {
    expect(encodedHeaderList(["x".repeat(MAX_HEADER_LIST_LENGTH + 1), "y"])).toEqual({ value: "", omitted: 2 })
    expect(encodedHeaderList(["x".repeat(MAX_HEADER_LIST_LENGTH)])).toEqual({
      value: "x".repeat(MAX_HEADER_LIST_LENGTH),
      omitted: 0
    })
  })
})
