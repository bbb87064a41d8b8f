/**
 * The hexagon's rule: dependencies point inward. The domain imports nothing but `effect`; adapters import
 * the domain but never each other; only the server composes them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
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
  // The official MCP client; the fetch it connects with comes from the server (pinned like provider calls).
  "adapters-mcp": [/^effect(\/|$)/, /^@gateway-control\/domain$/, /^@modelcontextprotocol\/sdk(\/|$)/],
  // OpenID Connect sign-in: openid-client discovers, builds the authorization URL and validates ID tokens.
  "adapters-oidc": [/^effect(\/|$)/, /^@gateway-control\/domain$/, /^openid-client$/],
  // The console's server side serves files; it knows nothing of the domain or the API it calls.
  console: [/^effect(\/|$)/, /^node:/],
  // The client knows the HTTP contract only: the definition entry of adapters-http, never its handlers.
  client: [/^effect(\/|$)/, /^@gateway-control\/adapters-http\/api$/],
  server: [/.*/]
}

/** The packages a package.json may depend on, where they differ from what its sources may import. */
const allowedDependencies: Record<string, ReadonlyArray<RegExp>> = {
  client: [/^effect$/, /^@gateway-control\/adapters-http$/]
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
    for (
      const pkg of [
        "domain",
        "adapters-memory",
        "adapters-sql",
        "adapters-http",
        "adapters-mcp",
        "adapters-oidc",
        "client"
      ]
    ) {
      const manifest = JSON.parse(readFileSync(join(packagesDir, pkg, "package.json"), "utf8"))
      const deps = Object.keys(manifest.dependencies ?? {})
      for (const dep of deps) {
        expect(
          (allowedDependencies[pkg] ?? allowed[pkg]).some((rule) => rule.test(dep)),
          `${pkg} depends on ${dep}`
        ).toBe(true)
      }
    }
  })
})

/** A whole `import type` or `export type` statement: type stripping erases it, so the browser never loads it. */
const TYPE_ONLY = /^\s*(?:import|export)\s+type\b/

/** The modules a file loads at run time: its imports but the type-only ones. */
const runtimeImportsOf = (file: string): Array<string> =>
  [...readFileSync(file, "utf8").matchAll(IMPORT)]
    .filter((m) => !TYPE_ONLY.test(m[0]))
    .map((m) => m[1] ?? m[2])
    .filter((s) => !s.startsWith("."))

describe("the console's browser code", () => {
  it("imports only the modules the page's import map provides", async () => {
    const { VENDOR_MODULES } = await import("@gateway-control/console")
    const appFiles = sourceFiles(join(packagesDir, "console", "app"))
    const imports = new Set(appFiles.flatMap(runtimeImportsOf))
    expect(imports.size).toBeGreaterThan(2)
    expect([...imports].filter((specifier) => !(VENDOR_MODULES as ReadonlyArray<string>).includes(specifier))).toEqual(
      []
    )
    const manifest = JSON.parse(readFileSync(join(packagesDir, "console", "package.json"), "utf8"))
    const vendorPackages = new Set(
      VENDOR_MODULES.map((m) => m.split("/").slice(0, m.startsWith("@") ? 2 : 1).join("/"))
    )
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...vendorPackages, "effect"].sort())
  })

  it("takes its types from the API definition only, in type-only imports (an inline `type` would still load)", () => {
    const appFiles = sourceFiles(join(packagesDir, "console", "app"))
    const typeOnly = new Set(appFiles.flatMap(importsOf).filter((s) => !appFiles.flatMap(runtimeImportsOf).includes(s)))
    expect([...typeOnly].sort()).toEqual(["@gateway-control/adapters-http/api", "effect", "effect/http-api"])
    // The scanner tells the two apart: an inline `type` specifier leaves `import {} from` behind.
    expect(TYPE_ONLY.test(`import type { GatewayApi } from "@gateway-control/adapters-http/api"`)).toBe(true)
    expect(TYPE_ONLY.test(`import { type GatewayApi } from "@gateway-control/adapters-http/api"`)).toBe(false)
  })
})

/** Relative imports of a file, resolved to absolute paths. */
const localImportsOf = (file: string): Array<string> =>
  [...readFileSync(file, "utf8").matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2])
    .filter((s) => s.startsWith("."))
    .map((s) => resolve(dirname(file), s))

const importGraph = (files: ReadonlyArray<string>): ReadonlyMap<string, ReadonlyArray<string>> =>
  new Map(files.map((file) => [file, localImportsOf(file).filter((f) => files.includes(f))]))

/** The import cycles of a graph, each found once, by depth-first search. */
const cyclesIn = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  const state = new Map<string, "open" | "done">()
  const cycles: Array<Array<string>> = []
  const visit = (file: string, path: Array<string>) => {
    state.set(file, "open")
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push([...path.slice(path.indexOf(next)), file, next])
      else if (state.get(next) === undefined) visit(next, [...path, file])
    }
    state.set(file, "done")
  }
  for (const file of graph.keys()) if (state.get(file) === undefined) visit(file, [])
  return cycles
}

/** Every file a file imports, directly or not, itself included. */
const reachableFrom = (file: string): ReadonlySet<string> => {
  const seen = new Set<string>()
  const visit = (next: string) => {
    if (seen.has(next)) return
    seen.add(next)
    localImportsOf(next).forEach(visit)
  }
  visit(file)
  return seen
}

describe("the API definition entry of adapters-http (`@gateway-control/adapters-http/api`)", () => {
  // What a client loads: the contract's files, and neither handlers, the key check, the edge nor internals.
  const definitionFile = /^(ApiDefinition|Api|ApiErrors|InputRules|Security)\.ts$|^groups\/(Common|[^/]+\/Api)\.ts$/

  it("imports the contract's files only", () => {
    const src = join(packagesDir, "adapters-http", "src")
    const reached = [...reachableFrom(join(src, "ApiDefinition.ts"))].map((file) => file.slice(src.length + 1))
    expect(reached.filter((file) => !definitionFile.test(file))).toEqual([])
    expect(reached).toContain("groups/prompts/Api.ts")
    expect(reached.length).toBeGreaterThan(10)
  })

  it("is the entry package.json exports as ./api", () => {
    const manifest = JSON.parse(readFileSync(join(packagesDir, "adapters-http", "package.json"), "utf8"))
    expect(manifest.exports["./api"]).toEqual({
      "@gateway-control/source": "./src/ApiDefinition.ts",
      types: "./dist/ApiDefinition.d.ts",
      default: "./dist/ApiDefinition.js"
    })
  })
})

describe("no import cycles", () => {
  for (const pkg of Object.keys(allowed)) {
    it(`within ${pkg}`, () => {
      const cycles = cyclesIn(importGraph(sourceFiles(join(packagesDir, pkg, "src"))))
      expect(cycles.map((cycle) => cycle.map((f) => f.slice(packagesDir.length)).join(" -> "))).toEqual([])
    })
  }

  it("the cycle finder finds cycles and the graph has edges (so the rule above cannot pass vacuously)", () => {
    const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]])
    expect(cyclesIn(graph)).toEqual([["a", "b", "c", "a"]])
    const domain = importGraph(sourceFiles(join(packagesDir, "domain", "src")))
    expect([...domain.values()].flat().length).toBeGreaterThan(50)
  })
})
