/**
 * A hostile MCP server (HostileMcpServer.ts) against sync, test and the health checker, on every store: text
 * a server sends (NUL, lone surrogates, control characters, huge strings, deep schemas) is stored repaired and
 * bounded, never answered with a 500 and never breaks a status write; and one check that breaks, whatever
 * the cause, does not stop the health round for the other integrations.
 */
import {
  makeHealthRound,
  McpConnections,
  McpIntegrationStore,
  McpSettings,
  McpUnreachable
} from "@gateway-control/domain"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type HostileMcpServer, startHostileMcpServer } from "./support/HostileMcpServer.ts"
import { eventually, type McpGateway, startMcpGateway } from "./support/McpGateway.ts"
import { availableStores, errorOf, jsonOf } from "./support/TestServer.ts"

/** Text PostgreSQL refuses, or a reader's terminal would act on. */
const UNSTORABLE =
  // eslint-disable-next-line no-control-regex
  /[\0\u0001-\u0008\u001b\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const nested = (depth: number) => `${"{\"a\":".repeat(depth)}1${"}".repeat(depth)}`

describe.each(availableStores)("a hostile MCP server on %s", (store) => {
  let hostile: HostileMcpServer
  let gateway: McpGateway

  beforeAll(async () => {
    hostile = await startHostileMcpServer()
    gateway = await startMcpGateway({ store, trusted: [hostile.host] })
  })
  afterAll(async () => {
    await gateway?.close()
    await hostile?.close()
  })

  const sync = (integrationId: string) =>
    gateway.server.send("POST", `/v1/mcp-integrations/${integrationId}/capabilities/sync`, undefined)
  const capabilities = async (integrationId: string) =>
    (await jsonOf(await gateway.server.request(`/v1/mcp-integrations/${integrationId}/capabilities?page_size=1000`)))
      .data as Array<{ name: string; description: string | null; input_schema?: unknown }>

  it("syncs names, descriptions and schemas with NUL, lone surrogates and control characters, stored repaired", async () => {
    hostile.behaviour = {
      results: {
        "tools/list": `{"tools":[${
          [
            `{"name":"a\\u0000b","description":"x\\ud800y\\u001b[31m","inputSchema":{"type":"object","properties":{"k\\u0000":{"type":"string","description":"\\udfff"}}}}`,
            `{"name":"deep","inputSchema":{"type":"object","properties":${nested(5_000)}}}`,
            `{"name":"ok","description":"plain","inputSchema":{"type":"object"}}`
          ].join(",")
        }]}`
      }
    }
    const { integrationId } = await gateway.register(hostile.url, "http")
    const synced = await sync(integrationId)
    expect(synced.status, await synced.clone().text()).toBe(200)
    expect(await jsonOf(synced)).toMatchObject({ total: 3, added: 3 })
    const stored = await capabilities(integrationId)
    expect(stored.map((c) => c.name).sort()).toEqual(["a\\u0000b", "deep", "ok"])
    const first = stored.find((c) => c.name === "a\\u0000b")!
    expect(first.description).toBe("x\\ud800y\\u001b[31m")
    expect(first.input_schema).toEqual({
      type: "object",
      properties: { "k\\u0000": { type: "string", description: "\\udfff" } }
    })
    expect(JSON.stringify(stored)).not.toMatch(UNSTORABLE)
    expect(JSON.stringify(stored.find((c) => c.name === "deep")!.input_schema)).toContain("[cut: nested deeper than")
  })

  it("bounds huge names and descriptions, and keeps the toggles working on what it stored", async () => {
    const name = "n".repeat(100_000)
    hostile.behaviour = {
      results: {
        "tools/list": JSON.stringify({
          tools: [{ name, description: "d".repeat(1_000_000), inputSchema: { type: "object" } }]
        })
      }
    }
    const { integrationId } = await gateway.register(hostile.url, "http")
    expect((await sync(integrationId)).status).toBe(200)
    const [stored] = await capabilities(integrationId)
    expect(stored.name.length).toBeLessThanOrEqual(2_048)
    expect(stored.description!.length).toBeLessThanOrEqual(10_000)
    const toggled = await gateway.server.send("PUT", `/v1/mcp-integrations/${integrationId}/capabilities`, {
      capabilities: [{ type: "tool", name: stored.name, enabled: false }]
    })
    expect(toggled.status).toBe(200)
  })

  it("answers a test and a sync of a server whose error page has NUL and surrogates in the envelope, not 500", async () => {
    const { integrationId, serverId } = await gateway.register(hostile.url, "http")
    hostile.behaviour = { failWith: { status: 503, body: `down\u0000\ud800 ${"x".repeat(50_000)}` } }
    try {
      const tested = await gateway.server.send("POST", `/v1/mcp-servers/${serverId}/test`, undefined)
      expect(tested.status).toBe(200)
      const result = await jsonOf(tested)
      expect(result).toMatchObject({ success: false, status_code: 503 })
      expect(result.error).not.toMatch(UNSTORABLE)
      expect(result.error.length).toBeLessThanOrEqual(1_000)
      expect(await errorOf(await sync(integrationId))).toMatchObject({ status: 502, code: "upstream_error" })
      const records = await jsonOf(
        await gateway.server.request("/v1/audit-logs?resource_type=mcp_server&action=test")
      )
      expect(records.records.length).toBeGreaterThan(0)
    } finally {
      hostile.behaviour = {}
    }
  })

  it("marks every failing integration unhealthy, one whose server's error has NUL included", async () => {
    const others = await Promise.all(
      [1, 2, 3].map(() => startHostileMcpServer({ failWith: { status: 500, body: "no" } }))
    )
    const own = await startHostileMcpServer({ failWith: { status: 503, body: "down\u0000\ud800" } })
    const checked = await startMcpGateway({
      store,
      trusted: [own.host, ...others.map((o) => o.host)],
      mcp: { healthIntervalMs: 50, unhealthyAfter: 1, timeoutMs: 2_000 }
    })
    try {
      // Integrations alone: with checks this frequent, one may turn unhealthy before a server of it is made.
      const add = async (url: string, n: number) => {
        const made = await checked.server.send("POST", "/v1/mcp-integrations", {
          name: `Failing ${n}`,
          url,
          transport: "http",
          auth_type: "none"
        })
        expect(made.status).toBe(201)
        return { integrationId: (await jsonOf(made)).id as string }
      }
      const registered = await Promise.all([own, ...others].map((s, n) => add(s.url, n)))
      const read = async (id: string) => jsonOf(await checked.server.request(`/v1/mcp-integrations/${id}`))
      for (const { integrationId } of registered) {
        const unhealthy = await eventually(() => read(integrationId), (i) => i.status === "unhealthy")
        expect(unhealthy.status_message).not.toMatch(UNSTORABLE)
      }
      expect((await read(registered[0].integrationId)).status_message).toContain("down\\u0000")
    } finally {
      await checked.close()
      await Promise.all([own, ...others].map((s) => s.close()))
    }
  })
})

describe("a health round", () => {
  let gateway: McpGateway
  beforeAll(async () => {
    gateway = await startMcpGateway({ trusted: ["127.0.0.1:9"] })
  })
  afterAll(() => gateway?.close())

  it("goes on past a check whose status write breaks, and counts it", async () => {
    const ids = await Promise.all(
      [1, 2, 3, 4, 5].map(async () => (await gateway.register("http://127.0.0.1:9/mcp", "http")).integrationId)
    )
    // The middle integration's status write dies, as a write of unstorable text did on PostgreSQL.
    const breaking = ids[2]
    const down = Layer.succeed(McpConnections)({
      probe: () => Effect.fail(new McpUnreachable({ message: "down", statusCode: 503 })),
      listCapabilities: () => Effect.fail(new McpUnreachable({ message: "down", statusCode: 503 }))
    })
    const round = Effect.gen(function*() {
      const store = yield* McpIntegrationStore
      const breakingStore = McpIntegrationStore.of({
        ...store,
        setStatus: (id, change) =>
          id === breaking ? Effect.die(new Error("invalid byte sequence")) : store.setStatus(id, change),
        // The page's write, with the unstorable change among the others, dies as a whole.
        setStatuses: (changes) =>
          changes.some(({ id }) => id === breaking)
            ? Effect.die(new Error("invalid byte sequence"))
            : store.setStatuses(changes)
      })
      const run = yield* makeHealthRound.pipe(Effect.provideService(McpIntegrationStore, breakingStore))
      return yield* run
    }).pipe(
      Effect.provide(down),
      Effect.provideService(McpSettings, { timeoutMs: 1_000, healthIntervalMs: 100, unhealthyAfter: 1 })
    )
    const outcome = await gateway.server.runtime.runPromise(round)
    expect(outcome).toEqual({ checked: 5, broken: 1 })
    const statuses = await Promise.all(
      ids.map(async (id) => (await jsonOf(await gateway.server.request(`/v1/mcp-integrations/${id}`))).status)
    )
    expect(statuses).toEqual(ids.map((id) => id === breaking ? "active" : "unhealthy"))
  })
})
