/**
 * The Mustache specification's own suites, with HTML escaping on as the specification expects.
 */
import { expect, it } from "vitest"
import { escapeHtml, Template } from "../src/prompts/Mustache.ts"
import { describeConformance } from "./support/Conformance.ts"

interface SpecTest {
  readonly name: string
  readonly desc: string
  readonly data: unknown
  readonly template: string
  readonly partials?: Record<string, string>
  readonly expected: string
}

/**
 * Known gaps in the optional inheritance suite: re-indenting block content at the site of expansion.
 * Every test of the required suites runs.
 */
const KNOWN_GAPS = new Set([
  "~inheritance/Override parent with newlines",
  "~inheritance/Standalone block",
  "~inheritance/Block reindentation",
  "~inheritance/Intrinsic indentation",
  "~inheritance/Nested block reindentation"
])

const suites = [
  "comments",
  "delimiters",
  "interpolation",
  "inverted",
  "partials",
  "sections",
  "~dynamic-names",
  "~inheritance"
]

for (const suite of suites) {
  describeConformance<{ tests: Array<SpecTest> }>(
    `mustache spec: ${suite}`,
    `mustache-spec/${suite}.json`,
    ({ tests }) => {
      const cases = (gap: boolean) =>
        tests.filter((t) => KNOWN_GAPS.has(`${suite}/${t.name}`) === gap).map((t) => [t.name, t] as const)
      const known = cases(true)
      if (known.length > 0) it.skip.each(known)("%s (known gap: block re-indentation)", () => {})
      it.each(cases(false))("%s", (_, test) => {
        const partials = new Map<string, Template>()
        const rendered = Template.compile(test.template).render(test.data, {
          escape: escapeHtml,
          partial: (name) => {
            if (!partials.has(name) && test.partials?.[name] !== undefined) {
              partials.set(name, Template.compile(test.partials[name]))
            }
            return partials.get(name)
          }
        })
        expect(rendered, test.desc).toBe(test.expected)
      })
    }
  )
}
