/**
 * The README's client examples are the tests' own: every region a test file marks `#region readme-<name>` …
 * `#endregion readme-<name>` appears in the README verbatim (indentation aside), so an example that stops
 * working fails its test, and one that changes fails here until the README follows.
 */
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

const testDir = new URL("./", import.meta.url)
const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8")

/** The marked regions of a file's text, each without its common indentation. */
const regionsOf = (text: string): ReadonlyArray<readonly [string, string]> => {
  const found: Array<readonly [string, string]> = []
  const pattern = /#region (readme-[\w-]+)[^\n]*\n([\s\S]*?)\n[^\n]*#endregion \1/g
  for (const match of text.matchAll(pattern)) {
    const lines = match[2].split("\n")
    const indent = Math.min(...lines.filter((line) => line.trim() !== "").map((line) => line.search(/\S/)))
    found.push([match[1], lines.map((line) => line.slice(indent)).join("\n")])
  }
  return found
}

const regions = readdirSync(testDir)
  .filter((name) => name.endsWith(".test.ts"))
  .flatMap((name) =>
    regionsOf(readFileSync(new URL(name, testDir), "utf8")).map(([region, code]) => [name, region, code])
  )

describe("the README's client examples", () => {
  it("come from the tests: the Portkey SDK, the OpenAI SDK and curl", () => {
    expect(regions.map(([, region]) => region).sort()).toEqual(["readme-curl", "readme-openai", "readme-portkey"])
  })

  it.each(regions)("%s's %s is in the README verbatim", (_, __, code) => {
    expect(readme).toContain(code)
  })
})
