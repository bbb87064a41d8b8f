/**
 * The hexagon's rule: dependencies point inward. The domain imports nothing but `effect`; adapters import
 * the domain but never each other; only the server composes them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packagesDir = fileURLToPath(new URL("../../", import.meta.url))

const allowed: Record<string, ReadonlyArray<RegExp>> = {
  domain: [/^effect(\/|$)/],
  "adapters-memory": [/^effect(\/|$)/, /^@gateway-control\/domain$/],
  "adapters-sql": [
    /^effect(\/|$)/,
    /^@gateway-control\/domain$/,
    /^@effect\/sql-pg(\/|$)/,
    /^@electric-sql\/pglite(\/|$)/,
    /^node:/
  ],
  // proxy-addr: reading X-Forwarded-For past trusted proxies, as Express does (ClientAddress.ts).
  "adapters-http": [/^effect(\/|$)/, /^@gateway-control\/domain$/, /^node:/, /^proxy-addr$/],
  server: [/.*/]
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g

const importsOf = (file: string): Array<string> =>
  [...readFileSync(file, "utf8").matchAll(IMPORT)].map((m) => m[1] ?? m[2]).filter((s) => !s.startsWith("."))

describe("package dependencies point inward", () => {
  for (const [pkg, rules] of Object.entries(allowed)) {
    it(`${pkg} imports only what it may`, () => {
      const offending = sourceFiles(join(packagesDir, pkg, "src")).flatMap((file) =>
        importsOf(file)
          .filter((specifier) => !rules.some((rule) => rule.test(specifier)))
          .map((specifier) => `${file.slice(packagesDir.length)} imports ${specifier}`)
      )
      expect(offending).toEqual([])
    })
  }

  it("the import scanner sees imports (so the rule above cannot pass vacuously)", () => {
    const files = sourceFiles(join(packagesDir, "adapters-http", "src"))
    const imports = files.flatMap(importsOf)
    expect(imports).toContain("@gateway-control/domain")
    expect(imports.some((s) => s.startsWith("effect"))).toBe(true)
  })

  it("package.json dependencies follow the same rule", () => {
    for (const pkg of ["domain", "adapters-memory", "adapters-sql", "adapters-http"]) {
      const manifest = JSON.parse(readFileSync(join(packagesDir, pkg, "package.json"), "utf8"))
      const deps = Object.keys(manifest.dependencies ?? {})
      for (const dep of deps) {
        expect(
          allowed[pkg].some((rule) => rule.test(dep)),
          `${pkg} depends on ${dep}`
        ).toBe(true)
      }
    }
  })
})
