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

/** Revokes a key by its id in the store directly, past the use cases (so this process's cache keeps what it knows). */
const revokeByIdInStore = (own: TestServer, id: string) =>
  own.runtime.runPromise(
    Effect.flatMap(Effect.service(ApiKeyStore), (store) => store.revoke(id, new Date().toISOString()))
  )

/** A workspace service key made through the API (its use case), as `{ id, key }`. */
const createServiceKey = async (own: TestServer, name: string) =>
  jsonOf(
    await own.send("POST", "/v1/api-keys/workspace/service", {
      name,
      workspace_id: own.workspaceId,
      scopes: ["workspaces.read", "workspaces.list"]
    })
  )

/** A key of the workspace's owner: its first use reads the store, as a user's key carries the user's roles. */
const createUserKey = async (own: TestServer, name: string) =>
  jsonOf(
    await own.send("POST", "/v1/api-keys/workspace/user", {
      name,
      workspace_id: own.workspaceId,
      user_id: own.ownerId,
      scopes: ["workspaces.read", "workspaces.list"]
    })
  )

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

  it("knows a service key it issued or rotated at its first use, with no store read; a user's key reads its user", async () => {
    const created = await createServiceKey(server, "known at first use")
    // Revoked past the use cases before its first use: a first use that read the store would refuse it.
    await revokeByIdInStore(server, created.id)
    expect((await server.request("/v1/workspaces", { key: created.key })).status).toBe(200)

    const other = await createServiceKey(server, "rotated, then known at first use")
    const rotated = await jsonOf(
      await server.send("POST", `/v1/api-keys/${other.id}/rotate`, { transition_period_ms: 0 })
    )
    await revokeByIdInStore(server, other.id)
    expect((await server.request("/v1/workspaces", { key: rotated.key })).status).toBe(200)
    // Its old secret was forgotten by the rotation, so it is read from the store: revoked there.
    expect((await server.request("/v1/workspaces", { key: other.key })).status).toBe(401)

    const userKey = await createUserKey(server, "a user's key")
    await revokeByIdInStore(server, userKey.id)
    expect((await server.request("/v1/workspaces", { key: userKey.key })).status).toBe(401)
  })

  it("reads a key it issued at its first use where other processes write the store", async () => {
    const own = await startTestServer({ store: sharedStoreWithFeedDown })
    try {
      const created = await createServiceKey(own, "read at first use")
      // As another process would: revoked in the shared store right after its creation.
      await revokeByIdInStore(own, created.id)
      expect((await own.request("/v1/workspaces", { key: created.key })).status).toBe(401)
    } finally {
      await own.close()
    }
  })

  it("forgets a key it knows from issuing it as soon as a change through the use cases revokes it", async () => {
    const created = await createServiceKey(server, "known, then revoked")
    await server.api((client) => client.apiKeys.revoke({ params: { id: created.id } }))
    expect((await server.request("/v1/workspaces", { key: created.key })).status).toBe(401)
  })

  it("reads a key its requests present at once a single time: the first use's read is shared", async () => {
    let digestReads = 0
    // Each read takes 200 ms, so the requests below all come while the first one's read is under way.
    const slowKeyReads = Layer.effect(ApiKeyStore)(Effect.map(Effect.service(ApiKeyStore), (store) => ({
      ...store,
      findByDigest: (digest: string) =>
        Effect.andThen(Effect.sync(() => digestReads++), Effect.delay(store.findByDigest(digest), "200 millis"))
    })))
    const own = await startTestServer({ store: Layer.merge(layerMemory, Layer.provide(slowKeyReads, layerMemory)) })
    try {
      // A user's key: its first use reads the store (a service key this process issued is known without).
      const userKey = await createUserKey(own, "a client's key")
      const before = digestReads
      const statuses = await Promise.all(
        Array.from({ length: 10 }, () => own.request("/v1/workspaces", { key: userKey.key }).then((r) => r.status))
      )
      expect(statuses).toEqual(Array.from({ length: 10 }, () => 200))
      expect(digestReads - before).toBe(1)
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
