import { layerMemory } from "@gateway-control/adapters-memory"
import type { GatewayControlClientShape } from "@gateway-control/client"
import { ApiKeys, ApiKeyStore, ChangeFeed, KEY_CACHE_TTL_MS } from "@gateway-control/domain"
import { DateTime, Effect, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

/** A store other processes share, its change feed down: only the key cache's lifetime bounds what this one misses. */
const sharedStoreWithFeedDown = Layer.merge(
  layerMemory,
  Layer.succeed(ChangeFeed)({ ...ChangeFeed.inProcess, soleWriter: false })
)

/** Revokes the key in the store directly, past the use cases (and so past this process's cache). */
const revokeInStore = (own: TestServer, key: string) =>
  own.runtime.runPromise(Effect.gen(function*() {
    const { keyId } = yield* Effect.flatMap(Effect.service(ApiKeys), (keys) => keys.authenticate(Redacted.make(key)))
    yield* Effect.flatMap(Effect.service(ApiKeyStore), (store) => store.revoke(keyId ?? "", new Date().toISOString()))
  }))

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

// What the header holds is tested over raw HTTP; what a key may do goes through the typed client, where a refusal's
// `_tag` stands for its status (`Unauthorized` 401, `ForbiddenError` 403, `NotFoundError` 404).
const listWorkspaces = (client: GatewayControlClientShape) => client.workspaces.list({ query: {} })

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
    await server.api(listWorkspaces, key)
    await server.api((client) => client.apiKeys.revoke({ params: { id: issued.key.id } }))
    const error = await server.refusal(listWorkspaces, key)
    expect(error).toMatchObject({ _tag: "Unauthorized", code: "unauthenticated" })
    expect(error.message).toMatch(/revoked/)
  })

  it("sees a revocation made by another process within the key cache's lifetime", async () => {
    const time = makeMovableClock()
    const own = await startTestServer({ clock: time.clock, store: sharedStoreWithFeedDown })
    try {
      const key = own.adminKey
      await own.api(listWorkspaces, key)
      // Another process revokes it in the shared store; this one learns of it when its cache entry lapses.
      await revokeInStore(own, key)
      await own.api(listWorkspaces, key)
      time.advance(KEY_CACHE_TTL_MS / 2)
      await own.api(listWorkspaces, key)
      time.advance(KEY_CACHE_TTL_MS / 2)
      expect((await own.refusal(listWorkspaces, key))._tag).toBe("Unauthorized")
    } finally {
      await own.close()
    }
  })

  it("holds a key's resolution past that lifetime when no other process writes the store", async () => {
    const time = makeMovableClock()
    const own = await startTestServer({ clock: time.clock })
    try {
      const key = own.adminKey
      await own.api(listWorkspaces, key)
      // A write past the use cases, which nothing real makes here: the cache holds what it resolved...
      await revokeInStore(own, key)
      time.advance(10 * KEY_CACHE_TTL_MS)
      await own.api(listWorkspaces, key)
      // ...until a change through them forgets it, at once.
      await own.runtime.runPromise(
        Effect.flatMap(Effect.service(ApiKeys), (keys) => keys.forgetUser(own.ownerId))
      )
      expect((await own.refusal(listWorkspaces, key))._tag).toBe("Unauthorized")
    } finally {
      await own.close()
    }
  })

  it("answers 401 for an expired key and 200 for one that expires later", async () => {
    const now = DateTime.nowUnsafe()
    const expired = await issueKey(DateTime.formatIso(DateTime.subtract(now, { seconds: 1 })))
    const error = await server.refusal(listWorkspaces, Redacted.value(expired.plaintext))
    expect(error).toMatchObject({ _tag: "Unauthorized", code: "unauthenticated" })
    expect(error.message).toMatch(/expired/)

    const later = await issueKey(DateTime.formatIso(DateTime.add(now, { hours: 1 })))
    await server.api(listWorkspaces, Redacted.value(later.plaintext))
  })

  it("keeps a workspace key inside its own workspace", async () => {
    const issued = await issueKey(null)
    const key = Redacted.value(issued.plaintext)
    const other = await server.api((client) => client.workspaces.create({ payload: { name: "Other team" } }))
    const read = (workspaceId: string) => (client: GatewayControlClientShape) =>
      client.workspaces.get({ params: { workspaceId } })
    await server.api(read(server.workspaceId), key)
    // Another workspace is out of the key's sight: not found, like another organisation's.
    const denied = await server.refusal(read(other.id), key)
    expect(denied).toMatchObject({ _tag: "NotFoundError", code: "not_found" })
    const listed = await server.api(listWorkspaces, key)
    expect(listed.data.map((w) => w.id)).toEqual([server.workspaceId])
  })

  it("denies an action whose scope the key lacks, naming the scope", async () => {
    const issued = await issueKey(null)
    const error = await server.refusal(
      (client) => client.workspaces.create({ payload: { name: "Not allowed" } }),
      Redacted.value(issued.plaintext)
    )
    expect(error).toMatchObject({ _tag: "ForbiddenError", code: "forbidden" })
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
