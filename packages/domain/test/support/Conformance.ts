/**
 * The conformance data (the Mustache specification's suites, OpenAI's request schemas) lives beside the
 * project in `../shared/conformance`, which a user's clone does not have. Suites that need it ask here:
 * without it they are skipped with one loud line, unless `REQUIRE_CONFORMANCE=1` (set by `.ci/run`), where
 * its absence fails the run instead of passing quietly.
 */
import { existsSync, readFileSync } from "node:fs"
import { describe, it } from "vitest"

const root = new URL("../../../../../shared/conformance/", import.meta.url)
let warned = false

/** Reads a conformance file as JSON, or undefined (after a warning) when the data is not beside the project. */
export const readConformanceJson = (relativePath: string): unknown => {
  const file = new URL(relativePath, root)
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8"))
  if (process.env.REQUIRE_CONFORMANCE === "1") {
    throw new Error(`REQUIRE_CONFORMANCE=1 but ${file.pathname} is missing`)
  }
  if (!warned) {
    warned = true
    console.warn(`\n*** conformance SKIPPED: ${root.pathname} is missing (set REQUIRE_CONFORMANCE=1 to fail) ***\n`)
  }
  return undefined
}

/** Declares a suite over conformance data, or one skipped test saying why when the data is absent. */
export const describeConformance = <A>(
  name: string,
  relativePath: string,
  body: (data: A) => void
): void => {
  const data = readConformanceJson(relativePath)
  if (data === undefined) {
    describe(name, () => it.skip(`SKIPPED: ../shared/conformance/${relativePath} is not beside the project`))
  } else {
    describe(name, () => body(data as A))
  }
}
