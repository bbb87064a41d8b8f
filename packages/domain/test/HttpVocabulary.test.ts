/**
 * The domain speaks no HTTP: no header names, no `Authorization`/`Bearer` syntax, no endpoint paths. Those
 * belong to the HTTP adapter, which reads headers into domain values (`ProviderSelection`) and words the
 * domain's errors (which name fields) for its clients.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const domainSrc = fileURLToPath(new URL("../src/", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

/** HTTP words, each with what it would betray. */
const HTTP_VOCABULARY: ReadonlyArray<readonly [RegExp, string]> = [
  [/x-service-/i, "a header of the service's HTTP API"],
  [/\bauthorization\b/i, "the Authorization header"],
  [/\bbearer\b/i, "the Bearer scheme"],
  [/\/v1\b/, "a path of the HTTP API"],
  [/\b(GET|POST|PUT|PATCH|DELETE) \//, "an HTTP endpoint"]
]

/**
 * Lines allowed to hold such a word, and why. The audit log redacts any field whose name says it holds a
 * credential; "authorization" and "bearer" are such names wherever they appear (an MCP integration's
 * headers, a body field), which is data, not the domain speaking HTTP.
 */
const ALLOWED: ReadonlyArray<readonly [string, RegExp]> = [
  ["audit/AuditRedaction.ts", /^\s*"(authorization|bearer)",$/],
  // Likewise credentials written inside text (a header string, a DSN): the audit log redacts them by value,
  // so it knows the formats they take in data; nothing there reads a request.
  ["audit/SecretValues.ts", /./]
]

const findings = (file: string, text: string): Array<string> =>
  text.split("\n").flatMap((line, i) =>
    HTTP_VOCABULARY.filter(([word]) => word.test(line))
      .filter(() => !ALLOWED.some(([allowedFile, allowed]) => file === allowedFile && allowed.test(line)))
      .map(([, what]) => `${file}:${i + 1} names ${what}: ${line.trim()}`)
  )

describe("the domain's vocabulary", () => {
  it("has no HTTP header names, authorization syntax or endpoint paths", () => {
    const files = sourceFiles(domainSrc)
    expect(files.length).toBeGreaterThan(30)
    const found = files.flatMap((path) => findings(relative(domainSrc, path), readFileSync(path, "utf8")))
    expect(found).toEqual([])
  })

  it("the scan finds each kind of HTTP word (so the rule above cannot pass vacuously)", () => {
    const lines = [
      `InvalidRequest.of("Unknown virtual key.", "x-service-virtual-key")`,
      `"x-service-provider needs the key in 'Authorization: Bearer <key>'."`,
      `InvalidRequest.of("No key.", "authorization")`,
      "`Unknown scopes: ${unknown}. GET /v1/scopes lists the known ones.`"
    ]
    expect(lines.map((line) => findings("credentials/Example.ts", line).length)).toEqual([1, 3, 1, 2])
    expect(findings("audit/AuditRedaction.ts", `  "authorization",`)).toEqual([])
    expect(findings("credentials/ApiKeys.ts", `  "authorization",`)).toHaveLength(1)
  })
})
