import { ApiKeys, ApiKeyStore, KEY_CACHE_TTL_MS } from "@gateway-control/domain"
import { DateTime, Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const issueKey = (expiresAt: string | null) =>
  server.runtime.runPromise(
    Effect.flatMap(Effect.service(ApiKeys), (keys) =>
      keys.issue({
        type: "workspace-service",
        name: "test key",
        description: null,
        organisationId: server.organisationId,
        workspaceId: server.workspaceId,
        userId: null,
        scopes: ["workspaces.read", "workspaces.list"],
        expiresAt
      }))
  )

describe("the x-service-api-key middleware", () => {
  it("accepts the bootstrap admin key", async () => {
    const response = await server.request("/v1/workspaces")
    expect(response.status).toBe(200)
    const body = await jsonOf(response)
    // Other tests here add workspaces; the bootstrapped one is there whatever ran before.
    expect(body.data.map((w: { slug: string }) => w.slug)).toContain("default")
  })

  it.each([
    // The domain says what is wrong; the HTTP adapter says where a key goes.
    ["missing", null, /^Missing API key: send it in the x-service-api-key header\.$/],
    ["empty", "", /^Missing API key: send it in the x-service-api-key header\.$/],
    ["malformed", "not-a-key", /^Invalid API key: check the x-service-api-key header\.$/],
    ["unknown", `gwc_${"A".repeat(43)}`, /^Invalid API key: check the x-service-api-key header\.$/]
  ])("answers 401 with the envelope for a %s key", async (_, key, message) => {
    const error = await errorOf(await server.request("/v1/workspaces", { key }))
    expect(error).toMatchObject({ status: 401, success: false, code: "unauthenticated", param: null })
    expect(error.message).toMatch(message)
  })

  it("answers 401 once a key is revoked, at once, even right after it was used", async () => {
    const issued = await issueKey(null)
    const key = Redacted.value(issued.plaintext)
    expect((await server.request("/v1/workspaces", { key })).status).toBe(200)
    expect((await server.request(`/v1/api-keys/${issued.key.id}`, { method: "DELETE" })).status).toBe(200)
    const error = await errorOf(await server.request("/v1/workspaces", { key }))
    expect(error).toMatchObject({ status: 401, code: "unauthenticated" })
    expect(error.message).toMatch(/revoked/)
  })

  it("sees a revocation made by another process within the key cache's lifetime", async () => {
    const time = makeMovableClock()
    const own = await startTestServer({ clock: time.clock })
    try {
      const key = own.adminKey
      const keyId = (await own.runtime.runPromise(
        Effect.flatMap(Effect.service(ApiKeys), (keys) => keys.authenticate(Redacted.make(key)))
      )).keyId
      expect((await own.request("/v1/workspaces", { key })).status).toBe(200)
      // Another process revokes it in the shared store; this one learns of it when its cache entry lapses.
      await own.runtime.runPromise(
        Effect.flatMap(Effect.service(ApiKeyStore), (store) => store.revoke(keyId, new Date().toISOString()))
      )
      expect((await own.request("/v1/workspaces", { key })).status).toBe(200)
      time.advance(KEY_CACHE_TTL_MS / 2)
      expect((await own.request("/v1/workspaces", { key })).status).toBe(200)
      time.advance(KEY_CACHE_TTL_MS / 2)
      expect((await own.request("/v1/workspaces", { key })).status).toBe(401)
    } finally {
      await own.close()
    }
  })

  it("answers 401 for an expired key and 200 for one that expires later", async () => {
    const now = DateTime.nowUnsafe()
    const expired = await issueKey(DateTime.formatIso(DateTime.subtract(now, { seconds: 1 })))
    const error = await errorOf(await server.request("/v1/workspaces", { key: Redacted.value(expired.plaintext) }))
    expect(error).toMatchObject({ status: 401, code: "unauthenticated" })
    expect(error.message).toMatch(/expired/)

    const later = await issueKey(DateTime.formatIso(DateTime.add(now, { hours: 1 })))
    expect((await server.request("/v1/workspaces", { key: Redacted.value(later.plaintext) })).status).toBe(200)
  })

  it("keeps a workspace key inside its own workspace", async () => {
    const issued = await issueKey(null)
    const key = Redacted.value(issued.plaintext)
    const created = await server.request("/v1/workspaces", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Other team" })
    })
    expect(created.status).toBe(201)
    const other = await jsonOf(created)
    expect((await server.request(`/v1/workspaces/${server.workspaceId}`, { key })).status).toBe(200)
    // Another workspace is out of the key's sight: not found, like another organisation's.
    const denied = await errorOf(await server.request(`/v1/workspaces/${other.id}`, { key }))
    expect(denied).toMatchObject({ status: 404, code: "not_found" })
    const listed = await jsonOf(await server.request("/v1/workspaces", { key }))
    expect(listed.data.map((w: { id: string }) => w.id)).toEqual([server.workspaceId])
  })

  it("denies an action whose scope the key lacks, naming the scope", async () => {
    const issued = await issueKey(null)
    const error = await errorOf(
      await server.request("/v1/workspaces", {
        key: Redacted.value(issued.plaintext),
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Not allowed" })
      })
    )
    expect(error).toMatchObject({ status: 403, code: "forbidden" })
    expect(error.message).toContain("workspaces.create")
  })

  it("does not need a key for the OpenAPI document, which declares the key scheme", async () => {
    const response = await server.request("/v1/openapi.json", { key: null })
    expect(response.status).toBe(200)
    const document = await jsonOf(response)
    expect(document.openapi).toMatch(/^3\.1/)
    const schemes = Object.values(document.components.securitySchemes) as Array<Record<string, string>>
    expect(schemes).toContainEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "x-service-api-key" }))
    expect(document.paths["/v1/workspaces"].get.security.length).toBeGreaterThan(0)
  })
})
