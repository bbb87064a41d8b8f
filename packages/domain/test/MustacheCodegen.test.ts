/**
 * Templates compile into generated JavaScript; these check that no template text or name can change that
 * code, whatever characters it holds, and that lookups stay on the data's own properties.
 */
import { describe, expect, it } from "vitest"
import { escapeHtml, Template } from "../src/prompts/Mustache.ts"

const render = (template: string, view: unknown, partials: Record<string, string> = {}) => {
  const compiled = new Map(Object.entries(partials).map(([name, text]) => [name, Template.compile(text)]))
  return Template.compile(template).render(view, { escape: escapeHtml, partial: (name) => compiled.get(name) })
}

describe("generated renderers", () => {
  it.each([
    ["quotes and backslashes", `say "hi" and 'bye' \\ \\n`],
    ["template literal syntax", "`${process.exit(1)}` ${globalThis}"],
    ["code that would close the function", `"; } return "pwned"; { "`],
    ["line separators", "a\u2028b\u2029c\r\nd"],
    ["comment markers", "/* not a comment */ // nor this"]
  ])("renders text with %s verbatim", (_, text) => {
    expect(render(text, {})).toBe(text)
    expect(render(`{{#list}}${text}{{/list}}`, { list: [1, 2] })).toBe(text + text)
  })

  it("looks names up literally, whatever characters they hold", () => {
    // No dots (a dotted name is a path) and no spaces (tags trim them).
    const name = `a"];process[exit](1);//${"`"}`
    expect(render(`{{${name}}}|{{&${name}}}`, { [name]: "<ok>" })).toBe("&lt;ok&gt;|<ok>")
    expect(render(`{{#${name}}}yes{{/${name}}}`, { [name]: true })).toBe("yes")
  })

  it("reads own properties only: prototype members render as missing", () => {
    expect(render("[{{constructor}}][{{__proto__}}][{{toString}}]", {})).toBe("[][][]")
    expect(render("{{#constructor}}x{{/constructor}}", {})).toBe("")
  })

  it("renders a section whose body is too large to write out twice, over lists and single values alike", () => {
    // Enough variables that the body's generated code is written once and shared by both cases.
    const body = Array.from({ length: 200 }, (_, i) => `{{#n${i}}}{{x}}{{/n${i}}}`).join("")
    const flags = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`n${i}`, i % 2 === 0]))
    const template = `{{#s}}${body};{{/s}}`
    expect(render(template, { ...flags, s: [{ x: "a" }, { x: "b" }] })).toBe(`${"a".repeat(100)};${"b".repeat(100)};`)
    expect(render(template, { ...flags, s: { x: "c" } })).toBe(`${"c".repeat(100)};`)
    expect(render(template, { ...flags, s: [] })).toBe("")
  })

  it("keeps the context stack balanced across sections, partials and missing names", () => {
    const template = "{{#a}}{{#b}}{{>p}}{{/b}}{{missing}}{{x}}{{/a}}{{x}}"
    expect(render(template, { x: "outer", a: { x: "inner", b: [{ y: 1 }, { y: 2 }] } }, { p: "{{y}}{{x}};" }))
      .toBe("1inner;2inner;innerouter")
  })
})
