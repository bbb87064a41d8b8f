/**
 * How `serve` delivers the console, without a browser: every file the page loads (following the import map
 * and every module's imports) comes from the process, never a CDN; every answer carries the strict
 * Content-Security-Policy, refuses framing and sends no referrer; files are compressed, carry an ETag and answer
 * 304 to it; `CONSOLE_ENABLED=false` turns it all off.
 */
import { ConfigProvider, Effect, Result } from "effect"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/AppConfig.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

let server: ServerProcess
beforeAll(async () => {
  server = await startServerProcess()
})
afterAll(async () => {
  server.child.kill("SIGTERM")
  await server.exited
})

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(new URL(path, server.baseUrl), { headers, redirect: "manual" })

const IMPORT_MAP = /<script type="importmap">([^<]*)<\/script>/
/** Static and dynamic imports, and re-exports, in the type-stripped or vendor JavaScript. */
const IMPORTS = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g

/** Every URL the page loads, by walking the page, its import map and each module's imports. */
const pageGraph = async () => {
  const html = await (await get("/console")).text()
  const map: Record<string, string> = JSON.parse(IMPORT_MAP.exec(html)![1]!).imports
  const pending = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
  pending.push(...Object.values(map))
  const seen = new Map<string, Response>()
  while (pending.length > 0) {
    const url = new URL(pending.pop()!, server.baseUrl)
    if (seen.has(url.href)) continue
    expect(url.origin, `${url.href} is not served by the process`).toBe(server.baseUrl)
    const response = await get(url.pathname)
    seen.set(url.href, response)
    if (!(response.headers.get("content-type") ?? "").startsWith("text/javascript")) continue
    for (const [, specifier] of (await response.clone().text()).matchAll(IMPORTS)) {
      pending.push(new URL(map[specifier!] ?? specifier!, url).href)
    }
  }
  return { html, map, responses: seen }
}

describe("the console as served", () => {
  it("loads every file from the process: no CDN, every import resolved by the import map or relatively", async () => {
    const { map, responses } = await pageGraph()
    expect(Object.keys(map).sort()).toEqual([
      "@preact/signals",
      "@preact/signals-core",
      "htm",
      "preact",
      "preact/hooks",
      "uqr"
    ])
    const paths = [...responses.keys()].map((href) => new URL(href).pathname)
    expect(paths).toEqual(expect.arrayContaining([
      "/console/app/main.ts",
      "/console/app/console.css",
      "/console/app/pages/promptVersions.ts",
      ...Object.values(map)
    ]))
    for (const [href, response] of responses) expect(response.status, href).toBe(200)
    // Type-stripped: no annotation reaches the browser.
    const api = await (await get("/console/app/api.ts")).text()
    expect(api).toContain("export const render = async (ref")
    expect(api).not.toMatch(/\binterface\s+\w+|ref: string/)
    // The types come from the API definition through `import type` lines, which stripping erases: the browser
    // loads neither the definition nor Effect.
    const apiImports = [...api.matchAll(IMPORTS)].map(([, specifier]) => specifier)
    expect(apiImports).toContain("./api/client.ts")
    expect(apiImports.filter((specifier) => !specifier!.startsWith("./api/") || specifier!.endsWith("contract.ts")))
      .toEqual([])
    const contract = await (await get("/console/app/api/contract.ts")).text()
    expect(contract).toContain("GatewayApi")
    expect([...contract.matchAll(IMPORTS)]).toEqual([])
    expect(paths).not.toContain("/console/app/api/contract.ts")
  })

  it("answers with a strict CSP that allows only the page's own import map inline, and no framing or referrer", async () => {
    const page = await get("/console")
    const html = await page.text()
    const importMap = IMPORT_MAP.exec(html)![1]!
    const hash = createHash("sha256").update(importMap).digest("base64")
    const csp = page.headers.get("content-security-policy")!
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}'`)
    expect(csp).toMatch(/default-src 'none'/)
    expect(csp).toMatch(/frame-ancestors 'none'/)
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/)
    // The import map is the page's one inline script.
    expect([...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>/g)].map((m) => m[0])).toEqual([
      "<script type=\"importmap\">"
    ])
    for (const path of ["/console", "/console/app/main.ts", "/console/prompts/abc", "/console/app/nope.ts", "/"]) {
      const response = await get(path)
      expect(response.headers.get("content-security-policy"), path).toBe(csp)
      expect(response.headers.get("x-frame-options"), path).toBe("DENY")
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer")
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff")
    }
  })

  it("redirects / to /console, answers the app's pages with the page, and a missing file with 404", async () => {
    const root = await get("/")
    expect(root.status).toBe(302)
    expect(root.headers.get("location")).toBe("/console")
    const deep = await get("/console/prompts/some-id/playground")
    expect(deep.status).toBe(200)
    expect(await deep.text()).toContain("<script type=\"module\" src=\"/console/app/main.ts\">")
    expect((await get("/console/app/nope.ts")).status).toBe(404)
    expect((await get("/console/vendor/preact.nope.mjs")).status).toBe(404)
  })

  it("compresses with brotli or gzip as accepted, tags each encoding, and answers 304 to its ETag", async () => {
    const plain = await get("/console/app/main.ts", { "accept-encoding": "identity" })
    const text = await plain.text()
    expect(plain.headers.get("content-encoding")).toBeNull()
    for (const encoding of ["br", "gzip"]) {
      const response = await get("/console/app/main.ts", { "accept-encoding": encoding })
      expect(response.headers.get("content-encoding")).toBe(encoding)
      expect(response.headers.get("vary")).toBe("accept-encoding")
      expect(await response.text()).toBe(text)
      const etag = response.headers.get("etag")!
      expect(etag).toMatch(new RegExp(`^"[\\w-]+-${encoding}"$`))
      const again = await get("/console/app/main.ts", { "accept-encoding": encoding, "if-none-match": etag })
      expect(again.status).toBe(304)
      expect(await again.text()).toBe("")
      expect(again.headers.get("etag")).toBe(etag)
    }
    expect((await get("/console/app/main.ts", { "accept-encoding": "br;q=0, gzip" })).headers.get("content-encoding"))
      .toBe("gzip")
    expect(plain.headers.get("cache-control")).toBe("no-cache")
    const { map } = await pageGraph()
    const vendor = await get(map.preact!)
    expect(vendor.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
  })
})

describe("CONSOLE_ENABLED", () => {
  it("false serves neither the console nor the redirect", async () => {
    const off = await startServerProcess({ CONSOLE_ENABLED: "false" })
    try {
      for (const path of ["/", "/console", "/console/app/main.ts"]) {
        const response = await fetch(`${off.baseUrl}${path}`, { redirect: "manual" })
        expect(response.status, path).toBe(404)
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found")
      }
      expect((await fetch(`${off.baseUrl}/healthz`)).status).toBe(200)
    } finally {
      off.child.kill("SIGTERM")
      await off.exited
    }
  })

  it("takes true or false, and stops the server on anything else, naming the variable", async () => {
    const load = (value: string) =>
      Effect.runPromise(
        Effect.result(loadConfig).pipe(
          Effect.provideService(
            ConfigProvider.ConfigProvider,
            ConfigProvider.fromEnv({ env: { CONSOLE_ENABLED: value } })
          )
        )
      )
    const enabled = (loaded: Awaited<ReturnType<typeof load>>) =>
      Result.isSuccess(loaded) && loaded.success.consoleEnabled
    expect(enabled(await load("true"))).toBe(true)
    expect(enabled(await load("false"))).toBe(false)
    const refused = await load("maybe")
    expect(Result.isFailure(refused) && refused.failure.message).toMatch(/CONSOLE_ENABLED/)
  })
})
