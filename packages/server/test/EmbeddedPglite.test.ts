/**
 * An embedded engine on PGlite in a real data directory: what it wrote, and its key, are there after
 * `close()` and a reopen by a new engine; while it is open, no second engine can open the directory.
 */
import { ApiKeys, Workspaces } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { mkdtempSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createGatewayControl, type GatewayControlEngine, InvalidConfiguration } from "../src/index.ts"
import { jsonOf } from "./support/TestServer.ts"

const dataDir = mkdtempSync(join(tmpdir(), "gwc-embedded-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const open = () => createGatewayControl({ store: "pglite", dataDir, logLevel: "warn" })

const workspaceSlugs = async (engine: GatewayControlEngine, key: string) => {
  const listed = await engine.fetch(
    new Request("http://engine.local/v1/workspaces", { headers: { "x-service-api-key": key } })
  )
  expect(listed.status).toBe(200)
  return (await jsonOf(listed)).data.map((workspace: { slug: string }) => workspace.slug)
}

describe("an embedded engine on PGlite", () => {
  it("keeps its data and its key across close and reopen, and holds the directory while open", async () => {
    const first = await open()
    const { api_key } = await first.bootstrap({ organisationName: "Durable", ownerEmail: "owner@durable.test" })
    const created = await first.fetch(
      new Request("http://engine.local/v1/workspaces", {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-api-key": api_key },
        body: JSON.stringify({ name: "Kept", slug: "kept" })
      })
    )
    expect(created.status).toBe(201)
    expect(statSync(join(dataDir, "master.key")).mode & 0o777).toBe(0o600)

    const second = await open().then(() => undefined, (error: unknown) => error)
    expect(second).toBeInstanceOf(InvalidConfiguration)
    expect(second).toMatchObject({ message: expect.stringMatching(/in use by another engine in this process/) })

    await first.close()
    await first.close()

    const reopened = await open()
    try {
      expect(await workspaceSlugs(reopened, api_key)).toEqual(["default", "kept"])
      const slugs = await reopened.run(Effect.gen(function*() {
        const principal = yield* (yield* ApiKeys).authenticate(Redacted.make(api_key))
        const page = yield* (yield* Workspaces).list(principal, { limit: 10, offset: 0 })
        return page.items.map((workspace) => workspace.slug)
      }))
      expect(slugs).toEqual(["default", "kept"])
      const again = await reopened.bootstrap({ organisationName: "Again", ownerEmail: "x@y.test" }).catch((e) => e)
      expect(again).toMatchObject({ _tag: "AlreadyBootstrapped" })
    } finally {
      await reopened.close()
    }
  }, 120_000)
})
