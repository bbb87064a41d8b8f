/**
 * Only the domain changes the store, and only inside an audited use case. Inside the domain, `grantedWrites`
 * makes every store write die outside one (GrantedWrites.test.ts). Outside it, this test holds the line: a
 * package that holds no store port, nor `Audit` (which appends records), nor `StoreTransaction` (units of work
 * and locks), cannot call a store-changing method at all, so it must go through the domain's use cases. The
 * store adapters implement the ports; the server's composition code is listed below, each file with its reason.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packagesDir = fileURLToPath(new URL("../../", import.meta.url))

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : []
  })

/** Every store port, as `StorePorts` (the union each store adapter provides) lists them. */
const storePorts = (): Array<string> => {
  const text = readFileSync(join(packagesDir, "domain/src/StorePorts.ts"), "utf8")
  const union = /export type StorePorts =([^;]*?)(?:\n\n|$)/.exec(text)?.[1] ?? ""
  return [...union.matchAll(/\|\s*([A-Za-z]+)/g)].map((m) => m[1]!)
}

/** What no edge may hold: the store ports, the audit log's writer, and the ports' union itself. */
const forbidden = (): ReadonlySet<string> => new Set([...storePorts(), "Audit", "StorePorts"])

const DOMAIN_IMPORT =
  /(?:import|export)\s+(type\s+)?(\*\s+as\s+(\w+)|\{([^}]*)\})\s*from\s*["']@gateway-control\/domain["']/g

/**
 * The domain's names a source text uses: its named imports (`type` ones too: a type names the port as much),
 * and every `N.Name` through a namespace import `* as N`.
 */
export const domainNamesIn = (text: string): Array<string> =>
  [...text.matchAll(DOMAIN_IMPORT)].flatMap((m) => {
    const namespace = m[3]
    if (namespace !== undefined) {
      return [...text.matchAll(new RegExp(`\\b${namespace}\\.(\\w+)`, "g"))].map((use) => use[1]!)
    }
    return m[4]!.split(",")
      .map((part) => part.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!.trim())
      .filter((name) => name !== "")
  })

const offendersIn = (pkg: string, except: Readonly<Record<string, string>> = {}) => {
  const banned = forbidden()
  const src = join(packagesDir, pkg, "src")
  return sourceFiles(src).flatMap((file) => {
    const relative = file.slice(src.length + 1)
    if (Object.hasOwn(except, relative)) return []
    return domainNamesIn(readFileSync(file, "utf8"))
      .filter((name) => banned.has(name))
      .map((name) => `${pkg}/src/${relative} uses ${name}`)
  })
}

/**
 * The server's composition code that holds store ports or `Audit`, and why. Any other server file calls the
 * domain's services.
 */
const SERVER_COMPOSITION: Readonly<Record<string, string>> = {
  "App.ts": "wires the store adapter's ports into the domain's layers (layerStore, layerDomain, Audit.layer)",
  "Cli.ts": "the CLI's `audit verify` and `audit checkpoint` read and sign the chain through Audit",
  "GatewayControl.ts": "the embedding API hands embedders the domain's services, Audit among them (list, verify)"
}

describe("store-changing ports are reached only through the domain's use cases", () => {
  it("StorePorts lists the ports (so the rules below cannot pass vacuously)", () => {
    const ports = storePorts()
    expect(ports).toContain("StoreTransaction")
    expect(ports).toContain("AuditLogStore")
    expect(ports).toContain("PromptStore")
    expect(ports.length).toBeGreaterThan(10)
  })

  it("the scanner reads named, type and aliased imports, and namespace uses", () => {
    const text = [
      `import { ApiKeys, type Audit, StoreTransaction as Tx } from "@gateway-control/domain"`,
      `import {\n  Prompts,\n  PromptStore\n} from "@gateway-control/domain"`,
      `import * as D from "@gateway-control/domain"`,
      `const x = D.LabelStore`
    ].join("\n")
    expect(domainNamesIn(text)).toEqual([
      "ApiKeys",
      "Audit",
      "StoreTransaction",
      "Prompts",
      "PromptStore",
      "LabelStore"
    ])
  })

  it("the HTTP adapter imports neither Audit, StoreTransaction nor any store port", () => {
    expect(offendersIn("adapters-http")).toEqual([])
  })

  for (const pkg of ["adapters-mcp", "adapters-oidc", "client", "console"]) {
    it(`${pkg} imports no store port nor Audit`, () => {
      expect(offendersIn(pkg)).toEqual([])
    })
  }

  it("the server holds them only in its composition code, each file listed with its reason", () => {
    expect(offendersIn("server", SERVER_COMPOSITION)).toEqual([])
    // A listed file that no longer needs its exception loses it.
    const banned = forbidden()
    for (const file of Object.keys(SERVER_COMPOSITION)) {
      const names = domainNamesIn(readFileSync(join(packagesDir, "server/src", file), "utf8"))
      expect(names.some((name) => banned.has(name)), `server/src/${file} still needs its exception`).toBe(true)
    }
  })
})
