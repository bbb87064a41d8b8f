/**
 * A store that cannot answer makes every call answer 503 `store_unavailable` in the envelope, with
 * `retry-after`, and changes nothing: an authenticated read, a change (whose audit record fails closed), the key
 * check of a key not yet resolved, and render. On the memory store its ports are switched to fail; on PostgreSQL
 * the connection to the database is cut by a proxy, as when the database is down or unreachable.
 */
import { STORE_RETRY_AFTER_SECONDS } from "@gateway-control/adapters-http"
import { randomUUID } from "node:crypto"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { postgresUrl } from "../../adapters-sql/test/support/Stores.ts"
import { narrowKey, recordOf, requestId, sendTraced } from "./support/AuditStores.ts"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"
import {
  type Outage,
  postgresBehind,
  startStoreProxy,
  type StoreProxy,
  switchableMemory
} from "./support/UnavailableStores.ts"

/** The answer a client gets while the store is unavailable. */
const expectUnavailable = async (response: Response) => {
  expect({ status: response.status, retryAfter: response.headers.get("retry-after") }).toEqual({
    status: 503,
    retryAfter: String(STORE_RETRY_AFTER_SECONDS)
  })
  const body = await jsonOf(response)
  expect(body).toEqual({
    success: false,
    error: { code: "store_unavailable", type: "service_unavailable_error", message: expect.any(String), param: null }
  })
  // The store's own words (host, port, driver) stay in the server's log.
  expect(body.error.message).not.toMatch(/127\.0\.0\.1|ECONN|Pg|cut/)
}

const uniqueName = (what: string) => `${what} ${randomUUID().slice(0, 8)}`

const workspaceNames = async (server: TestServer): Promise<ReadonlyArray<string>> => {
  const listed = await server.request("/v1/workspaces?page_size=1000")
  expect(listed.status).toBe(200)
  return ((await jsonOf(listed)).data as Array<{ name: string }>).map((w) => w.name)
}

const createPrompt = async (server: TestServer) => {
  const created = await server.send("POST", "/v1/prompts", {
    workspace_id: server.workspaceId,
    name: uniqueName("Prompt"),
    string: JSON.stringify([{ role: "user", content: "{{question}}" }]),
    model: "gpt-4o"
  })
  expect(created.status).toBe(201)
  return (await jsonOf(created)).id as string
}

const render = (server: TestServer, promptId: string) =>
  server.send("POST", `/v1/prompts/${promptId}/render`, { variables: { question: "up?" } })

describe("a store that cannot answer: memory store, its ports switched off", () => {
  let outage: Outage = "none"
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ store: switchableMemory(() => outage) })
    // The admin key is resolved once while the store answers, so the calls below reach the store behind it.
    expect((await server.request("/v1/workspaces")).status).toBe(200)
  })
  afterEach(() => {
    outage = "none"
  })
  afterAll(() => server?.close())

  it("an authenticated read answers 503 with retry-after, in the envelope", async () => {
    outage = "all"
    await expectUnavailable(await server.request("/v1/workspaces"))
  })

  it("a change answers 503 and changes nothing", async () => {
    const name = uniqueName("Down")
    outage = "all"
    await expectUnavailable(await server.send("POST", "/v1/workspaces", { name }))
    outage = "none"
    expect(await workspaceNames(server)).not.toContain(name)
  })

  it("a change the store refuses is recorded as 503", async () => {
    const name = uniqueName("Refused")
    const id = requestId()
    outage = "entities"
    await expectUnavailable(await sendTraced(server, "POST", "/v1/workspaces", JSON.stringify({ name }), { id }))
    outage = "none"
    expect(await workspaceNames(server)).not.toContain(name)
    expect(await recordOf(server, id)).toMatchObject({ action: "create", response_status_code: 503 })
  })

  it("a change whose audit record cannot be written answers 503 and is rolled back", async () => {
    const name = uniqueName("Unrecorded")
    outage = "audit"
    await expectUnavailable(await server.send("POST", "/v1/workspaces", { name }))
    outage = "none"
    expect(await workspaceNames(server)).not.toContain(name)
  })

  it("the key check of a key not yet resolved answers 503, not 401", async () => {
    const fresh = await narrowKey(server, ["workspaces.list"])
    outage = "all"
    await expectUnavailable(await server.request("/v1/workspaces", { key: fresh.key }))
    outage = "none"
    expect((await server.request("/v1/workspaces", { key: fresh.key })).status).toBe(200)
  })

  it("render answers 503", async () => {
    const promptId = await createPrompt(server)
    outage = "all"
    await expectUnavailable(await render(server, promptId))
    outage = "none"
    expect((await render(server, promptId)).status).toBe(200)
  })
})

describe.runIf(postgresUrl !== undefined)("a store that cannot answer: PostgreSQL cut off by a proxy", () => {
  let proxy: StoreProxy
  let server: TestServer
  let promptId: string
  let freshKey: string
  beforeAll(async () => {
    proxy = await startStoreProxy(postgresUrl!)
    server = await startTestServer({ store: postgresBehind(proxy, postgresUrl!) })
    promptId = await createPrompt(server)
    freshKey = (await narrowKey(server, ["workspaces.list"])).key
  }, 60_000)
  afterEach(() => proxy.restore())
  afterAll(async () => {
    await proxy?.restore()
    await server?.close()
    await proxy?.close()
  }, 60_000)

  it("reads, changes, the key check and render answer 503 with retry-after; readiness says degraded", async () => {
    const name = uniqueName("Down")
    await proxy.cut()
    await expectUnavailable(await server.request("/v1/workspaces"))
    await expectUnavailable(await server.send("POST", "/v1/workspaces", { name }))
    await expectUnavailable(await server.request("/v1/workspaces", { key: freshKey }))
    await expectUnavailable(await render(server, promptId))
    // Readiness says degraded, and the balancer keeps sending: the answers above are the process's own 503s
    // (StoreOutage.test.ts covers what the snapshot still answers).
    const ready = await server.request("/readyz", { key: null })
    expect({ status: ready.status, body: await jsonOf(ready) }).toMatchObject({
      status: 200,
      body: { status: "degraded", reason: "store_unavailable" }
    })
    await proxy.restore()
    expect(await workspaceNames(server)).not.toContain(name)
  }, 60_000)
})

describe.runIf(postgresUrl !== undefined)("a store that hangs: PostgreSQL behind a proxy that stops forwarding", () => {
  // The statement limit the server is given; a server silent for a second more is taken for hung.
  const statementTimeoutMs = 1_000
  const connectTimeoutMs = 1_000
  /** Generous against CI's load, and far below the minutes TCP takes to give up on an open connection. */
  const bound = 8_000
  let proxy: StoreProxy
  let server: TestServer
  let promptId: string
  beforeAll(async () => {
    proxy = await startStoreProxy(postgresUrl!)
    server = await startTestServer({
      store: postgresBehind(proxy, postgresUrl!, { statementTimeoutMs, connectTimeoutMs })
    })
    promptId = await createPrompt(server)
  }, 60_000)
  afterEach(() => proxy.restore())
  afterAll(async () => {
    await proxy?.restore()
    await server?.close()
    await proxy?.close()
  }, 60_000)

  const timed = async (call: () => Promise<Response>) => {
    const started = performance.now()
    const response = await call()
    return { response, ms: performance.now() - started }
  }

  it("reads, changes and render answer 503 with retry-after within a bounded time, not when TCP gives up", async () => {
    const name = uniqueName("Hung")
    proxy.hang()
    const calls = await Promise.all([
      timed(() => server.request("/v1/workspaces")),
      timed(() => server.send("POST", "/v1/workspaces", { name })),
      timed(() => server.send("POST", "/v1/api-keys/organisation/service", { name: uniqueName("Key"), scopes: [] })),
      timed(() => render(server, promptId))
    ])
    for (const { ms, response } of calls) {
      await expectUnavailable(response)
      expect(ms).toBeLessThan(bound)
    }
    // A call that opens a connection while the server hangs is bounded too (the connect timeout).
    const late = await timed(() => server.request("/v1/workspaces"))
    await expectUnavailable(late.response)
    expect(late.ms).toBeLessThan(bound)
    await proxy.restore()
    expect(await workspaceNames(server)).not.toContain(name)
  }, 60_000)

  it("after the hang every connection is usable again: key creation, changes and reads all answer", async () => {
    proxy.hang()
    await expectUnavailable(await server.send("POST", "/v1/workspaces", { name: uniqueName("Hung") }))
    await proxy.restore()
    // More calls than the pool has connections, so a connection left in a bad state would be met.
    for (let i = 0; i < 6; i++) {
      const key = await narrowKey(server, ["workspaces.list"])
      expect((await server.request("/v1/workspaces", { key: key.key })).status).toBe(200)
      expect((await server.send("POST", "/v1/workspaces", { name: uniqueName("Back") })).status).toBe(201)
      expect((await render(server, promptId)).status).toBe(200)
    }
  }, 60_000)
})
