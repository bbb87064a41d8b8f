/**
 * The bundled CLI an installation runs (`scripts/bundle-cli.mjs` → `dist/cli/main.js`): built here from the
 * sources into a directory of this package, so that what it leaves outside (PGlite, the console's assets) resolves
 * as in an installation, then started as the bin starts it. It serves on PGlite (its template found through the
 * installation's node_modules), the console and its vendor files, the API reference (a chunk loaded on first
 * use), and a prompt created and rendered; every file is ASCII, and the stripped licence comments are in
 * THIRD-PARTY-NOTICES.txt.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import { bundleCli, OPTIONAL_NATIVE } from "../scripts/bundle-cli.mjs"
import { cleanupsAfterAll, tempDirWith } from "./support/Cleanups.ts"
import { startServerProcess } from "./support/ServerProcess.ts"

const exec = promisify(execFile)
const cleanups = cleanupsAfterAll()
const tempDir = tempDirWith(cleanups, "gwc-bundle-")
const packageDir = fileURLToPath(new URL("..", import.meta.url))
const heapSettings = join(packageDir, "bin/heap.mjs")

let outDir = ""
let chunks: ReadonlyArray<
  { readonly fileName: string; readonly imports: Array<string>; readonly dynamicImports: Array<string> }
> = []

beforeAll(async () => {
  outDir = mkdtempSync(join(packageDir, ".test-bundle-"))
  cleanups.push(() => rmSync(outDir, { recursive: true, force: true }))
  chunks = (await bundleCli(outDir, { fromSource: true })).flatMap((file) => file.type === "chunk" ? [file] : [])
  // What the bin does in an installation: its heap settings, then the `./cli` module.
  writeFileSync(
    join(outDir, "bin.mjs"),
    `import { loadTuned } from ${JSON.stringify(heapSettings)}\nawait loadTuned(() => import("./main.js"))\n`
  )
}, 120_000)

/** The bundle's `serve`, started as the bin starts an installation's CLI. */
const startBundle = async (env: Record<string, string>) => {
  const server = await startServerProcess(
    { LOG_LEVEL: "info", ...env },
    // The console's assets module is the one file left outside the bundle from a workspace package: with no
    // build in a checkout, it resolves to its TypeScript source.
    ["--conditions=@gateway-control/source", join(outDir, "bin.mjs")]
  )
  cleanups.push(() => server.child.kill("SIGKILL"))
  return server
}

describe("the bundled CLI", () => {
  it("is plain ASCII, with its source maps and the licences of what it bundles beside it", () => {
    const files = readdirSync(outDir).filter((name) => name.endsWith(".js") && name !== "bin.mjs")
    expect(files).toContain("main.js")
    for (const name of files) {
      const text = readFileSync(join(outDir, name), "utf8")
      const outside = [...text].findIndex((character) => character.charCodeAt(0) > 0x7f)
      expect({ name, outside }).toEqual({ name, outside: -1 })
    }
    const map = JSON.parse(readFileSync(join(outDir, "main.js.map"), "utf8")) as { sources: Array<string> }
    expect(map.sources.some((source) => /(^|\/)src\/Cli\.ts$/.test(source))).toBe(true)
    const notices = readFileSync(join(outDir, "THIRD-PARTY-NOTICES.txt"), "utf8")
    expect(notices).toMatch(/^effect \d+\.\d+\.\d+ \(MIT\)$/m)
    expect(notices).toMatch(/^jose \d+\.\d+\.\d+ \(MIT\)$/m)
    expect(notices).toContain("Permission is hereby granted")
  })

  it("imports only its own files, Node's modules, and packages that resolve from this package", async () => {
    const specifiers = new Set(chunks.flatMap((chunk) => [...chunk.imports, ...chunk.dynamicImports]))
    const files = new Set(chunks.map((chunk) => chunk.fileName))
    const own = [...specifiers].filter((s) => files.has(s))
    // The one external not installed: a native module Redis's client tries, and does without.
    const packages = [...specifiers].filter((s) => !files.has(s) && !s.startsWith("node:") && s !== OPTIONAL_NATIVE)
    expect(own.length).toBeGreaterThan(5)
    for (const file of own) expect(existsSync(join(outDir, file))).toBe(true)
    expect(packages.filter((s) => !/^@electric-sql\/pglite|^@aws-sdk\/|^@gateway-control\/console\/assets$/.test(s)))
      .toEqual([])
    expect(packages).toEqual(expect.arrayContaining(["@electric-sql/pglite", "@gateway-control/console/assets"]))
    // Resolved as the bundle's own modules resolve them, from a module in its directory.
    const script = `for (const s of ${JSON.stringify(packages)}) import.meta.resolve(s)\nconsole.log("resolved")`
    const { stdout } = await exec(
      process.execPath,
      ["--conditions=@gateway-control/source", "--input-type=module", "-e", script],
      { cwd: outDir }
    )
    expect(stdout.trim()).toBe("resolved")
  }, 60_000)

  it("serves the API, the console and the API reference on PGlite, and renders a prompt", async () => {
    const server = await startBundle({ GATEWAY_STORE: "pglite", DATA_DIR: join(tempDir(), "data") })
    const key = /x-service-api-key: (gwc_[A-Za-z0-9_-]+)/.exec(server.stderr())?.[1]
    const workspaceId = /workspace '[^']*' \(([0-9a-f-]+)\)/.exec(server.stderr())?.[1]
    expect(key).toBeDefined()
    expect(workspaceId).toBeDefined()
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200)

    const page = await fetch(`${server.baseUrl}/console/`)
    expect(page.status).toBe(200)
    const html = await page.text()
    const vendor = /"preact":"([^"]+)"/.exec(html)?.[1]
    expect(vendor).toBeDefined()
    const preact = await fetch(`${server.baseUrl}${vendor}`)
    expect(preact.status).toBe(200)
    expect(await preact.text()).toContain("export")

    const docs = await fetch(`${server.baseUrl}/docs`)
    expect(docs.status).toBe(200)
    expect(await docs.text()).toContain("<html")

    const headers = { "x-service-api-key": key!, "content-type": "application/json" }
    const created = await fetch(`${server.baseUrl}/v1/prompts`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "bundled", workspace_id: workspaceId, string: "Hello {{who}}", model: "m" })
    })
    expect(created.status).toBe(201)
    const { id } = await created.json() as { id: string }
    const rendered = await fetch(`${server.baseUrl}/v1/prompts/${id}/render`, {
      method: "POST",
      headers,
      body: JSON.stringify({ variables: { who: "bundle" } })
    })
    expect(rendered.status).toBe(200)
    expect(JSON.stringify(await rendered.json())).toContain("Hello bundle")
  }, 120_000)
})
