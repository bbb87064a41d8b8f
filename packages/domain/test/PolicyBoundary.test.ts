/**
 * The policy boundary: every access decision is the policy's. Only the policy modules construct `Forbidden`
 * or an access-hiding `NotFound`; services say "not found" only through `requireRow`, which takes a lookup's
 * own answer, and never compare a resource's organisation or workspace with the caller's, nor read its roles
 * or scopes. This scans the domain's sources, so a new hand-written check fails here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const srcDir = fileURLToPath(new URL("../src/", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

/** The policy modules, and the error module that defines `requireRow`. */
const POLICY = ["access/Policy.ts", "access/KeyPolicy.ts"]
const ERRORS = "shared/Errors.ts"

const RULES: ReadonlyArray<
  { readonly rule: string; readonly pattern: RegExp; readonly exempt: ReadonlyArray<string> }
> = [
  {
    rule: "constructs Forbidden",
    pattern: /\bnew\s+Forbidden\b|\bForbidden\.(make|of)\b/,
    exempt: POLICY
  },
  {
    rule: "constructs NotFound (use requireRow for a missing row; the policy hides the rest)",
    pattern: /\bnew\s+NotFound\b|\bNotFound\.(make|of)\b/,
    exempt: [...POLICY, ERRORS]
  },
  {
    rule: "passes requireRow an answer no lookup gave",
    pattern: /requireRow\(\s*Option\.none\(/,
    exempt: []
  },
  {
    rule: "compares something with the caller's organisation or workspace",
    pattern: /[!=]==\s*principal\.(organisationId|workspaceId)\b|\bprincipal\.(organisationId|workspaceId)\s*[!=]==/,
    exempt: POLICY
  },
  {
    rule: "reads the caller's roles, key kind or scopes",
    pattern: /\bprincipal\.(organisationRole|workspaceRole|keyType|scopes)\b/,
    exempt: POLICY
  }
]

/** The source without comments, so that prose about the rules does not trip them. */
const code = (file: string) => readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "")

const violations = (files: ReadonlyArray<string>) =>
  files.flatMap((file) => {
    const name = relative(srcDir, file).replaceAll("\\", "/")
    const text = code(file)
    return RULES.filter(({ exempt, pattern }) => !exempt.includes(name) && pattern.test(text))
      .map(({ rule }) => `${name} ${rule}`)
  })

describe("the policy boundary", () => {
  const files = sourceFiles(srcDir)

  it("no service decides access by itself", () => {
    expect(violations(files)).toEqual([])
  })

  it("the scan sees what it looks for (so it cannot pass vacuously)", () => {
    const policy = files.filter((file) => POLICY.some((name) => file.endsWith(name)))
    expect(policy).toHaveLength(2)
    const text = policy.map(code).join("\n")
    for (const { pattern } of RULES.slice(0, 2)) expect(pattern.test(text)).toBe(true)
    expect(RULES[3]!.pattern.test("if (x.organisation_id !== principal.organisationId) {")).toBe(true)
    expect(RULES[4]!.pattern.test("principal.scopes.has(scope)")).toBe(true)
    expect(files.some((file) => code(file).includes("requireRow("))).toBe(true)
  })
})
