/**
 * The outage contract (README "Operations: the store outage contract"): while the store is unreachable, keys and
 * renders this process holds in its caches answer from their snapshot with `x-service-snapshot-age`, for at most
 * `STORE_OUTAGE_SNAPSHOT_MS`; revocations seen before stay in force; everything that needs the store answers 503
 * `store_unavailable` with `Retry-After`; `/readyz` says `degraded` and `/healthz` stays 200; once the store is
 * back the process recovers by itself and clears its caches.
 *
 * Here on the memory store with its ports switched off (support/UnavailableStores.ts); StoreOutageCluster.test.ts
 * stops a real PostgreSQL server under load.
 */
import { STORE_RETRY_AFTER_SECONDS } from "@gateway-control/adapters-http"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { narrowKey } from "./support/AuditStores.ts"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"
import { type Outage, switchableMemory } from "./support/UnavailableStores.ts"

const SNAPSHOT_AGE = "x-service-snapshot-age"

const expectUnavailable = async (response: Response) => {
  expect({ status: response.status, retryAfter: response.headers.get("retry-after") }).toEqual({
    status: 503,
    retryAfter: String(STORE_RETRY_AFTER_SECONDS)
  })
  expect((await jsonOf(response)).error).toMatchObject({ code: "store_unavailable" })
  expect(response.headers.get(SNAPSHOT_AGE)).toBeNull()
}

const createPrompt = async (server: TestServer) => {
  const created = await server.send("POST", "/v1/prompts", {
    workspace_id: server.workspaceId,
    name: `Prompt ${randomUUID().slice(0, 8)}`,
    string: JSON.stringify([{ role: "user", content: "{{question}}" }]),
    model: "gpt-4o"
  })
  expect(created.status).toBe(201)
  return (await jsonOf(created)).id as string
}

const render = (server: TestServer, promptId: string, key?: string) =>
  server.send("POST", `/v1/prompts/${promptId}/render`, { variables: { question: "up?" } }, key)

const readiness = async (server: TestServer) => {
  const ready = await server.request("/readyz", { key: null })
  return { status: ready.status, body: await jsonOf(ready) }
}

/** Polls `check` until it holds, for at most `withinMs`. */
const eventually = async (withinMs: number, check: () => Promise<boolean>) => {
  const started = performance.now()
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("the outage snapshot: memory store, its ports and ping switched off", () => {
  let outage: Outage = "none"
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ store: switchableMemory(() => outage), storeOutage: { snapshotMs: 60_000 } })
  })
  afterAll(() => server?.close())

  it("cached keys and renders answer with the snapshot's age; the rest 503; degraded; back by itself", async () => {
    const promptId = await createPrompt(server)
    const uncachedPrompt = await createPrompt(server)
    const renderer = await narrowKey(server, ["prompts.render"])
    const revoked = await narrowKey(server, ["prompts.render"])
    const unseen = await narrowKey(server, ["prompts.render"])
    // Resolved once while the store answers: the key by its render, the prompt reference by the render.
    expect((await render(server, promptId, renderer.key)).status).toBe(200)
    expect((await render(server, promptId, revoked.key)).status).toBe(200)
    expect((await server.request(`/v1/api-keys/${revoked.id}`, { method: "DELETE" })).status).toBe(200)
    expect((await readiness(server)).body).toEqual({ status: "ok" })

    outage = "all"
    // The memory store's caches never expire, so here a readiness probe is what finds the store unreachable
    // (on PostgreSQL, so does the first key or reference past its lifetime); from then on cached answers say so.
    const degraded = await readiness(server)
    expect(degraded).toEqual({
      status: 200,
      body: { status: "degraded", reason: "store_unavailable", message: expect.any(String), since: expect.any(String) }
    })
    const fromSnapshot = await render(server, promptId, renderer.key)
    expect(fromSnapshot.status).toBe(200)
    expect(fromSnapshot.headers.get(SNAPSHOT_AGE)).toMatch(/^\d+$/)
    expect((await jsonOf(fromSnapshot)).data.messages).toEqual([{ role: "user", content: "up?" }])
    const byAdmin = await render(server, promptId)
    expect({ status: byAdmin.status, age: byAdmin.headers.get(SNAPSHOT_AGE) }).toEqual({
      status: 200,
      age: expect.stringMatching(/^\d+$/)
    })
    // A revocation seen before the outage stays in force; a key never seen, a prompt never resolved, a read
    // and a change need the store.
    await expectUnavailable(await render(server, promptId, revoked.key))
    await expectUnavailable(await render(server, promptId, unseen.key))
    await expectUnavailable(await render(server, uncachedPrompt))
    await expectUnavailable(await server.request("/v1/workspaces"))
    await expectUnavailable(await server.send("POST", "/v1/workspaces", { name: "During the outage" }))
    // Steady: the same answer on every probe of the outage.
    expect(await readiness(server)).toEqual(degraded)
    expect((await server.request("/healthz", { key: null })).status).toBe(200)

    outage = "none"
    await eventually(5_000, async () => (await readiness(server)).body.status === "ok")
    const fresh = await render(server, promptId, renderer.key)
    expect({ status: fresh.status, age: fresh.headers.get(SNAPSHOT_AGE) }).toEqual({ status: 200, age: null })
    expect((await server.request("/v1/workspaces")).status).toBe(200)
    expect((await render(server, uncachedPrompt)).status).toBe(200)
  }, 30_000)
})

describe("the outage snapshot's bound", () => {
  let outage: Outage = "none"
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ store: switchableMemory(() => outage), storeOutage: { snapshotMs: 1_000 } })
  })
  afterAll(() => server?.close())

  it("a store read older than STORE_OUTAGE_SNAPSHOT_MS answers nothing: 503", async () => {
    const promptId = await createPrompt(server)
    const renderer = await narrowKey(server, ["prompts.render"])
    expect((await render(server, promptId, renderer.key)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    outage = "all"
    expect((await readiness(server)).body.status).toBe("degraded")
    await expectUnavailable(await render(server, promptId, renderer.key))
    outage = "none"
  }, 30_000)
})
