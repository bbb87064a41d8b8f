/**
 * `Idempotency-Key` on creates, as Stripe has it: the same key and body from the same credential within 24 h get
 * the first answer back (status and body, marked `idempotent-replayed`) and create nothing more; the same key
 * with another body is refused (422); a duplicate that arrives while the first still runs is refused (409)
 * rather than run; a failure on the store's side frees the key for the retry. Concurrent duplicates create once,
 * in one process and across two processes on one PostgreSQL (the store's primary key decides).
 */
import { randomBytes, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshDatabase, postgresUrl } from "./support/Databases.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"
import { type Outage, switchableMemory } from "./support/UnavailableStores.ts"

interface Target {
  readonly baseUrl: string
}

const post = (target: Target, apiKey: string, path: string, body: unknown, idempotencyKey?: string) =>
  fetch(`${target.baseUrl}${path}`, {
    method: "POST",
    headers: {
      "x-service-api-key": apiKey,
      "content-type": "application/json",
      ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
    },
    body: JSON.stringify(body)
  })

const workspaceNames = async (target: Target, apiKey: string): Promise<ReadonlyArray<string>> => {
  const listed = await fetch(`${target.baseUrl}/v1/workspaces?page_size=1000`, {
    headers: { "x-service-api-key": apiKey }
  })
  expect(listed.status).toBe(200)
  return ((await jsonOf(listed)).data as Array<{ name: string }>).map((w) => w.name)
}

const uniqueName = (what: string) => `${what} ${randomUUID().slice(0, 8)}`

const answerOf = async (response: Response) => ({
  status: response.status,
  replayed: response.headers.get("idempotent-replayed"),
  body: (await response.json()) as Record<string, unknown>
})

describe("Idempotency-Key on one process", () => {
  let outage: Outage = "none"
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ store: switchableMemory(() => outage) })
  })
  afterAll(() => server.close())

  it("replays the first answer to the same key and body, and creates once", async () => {
    const name = uniqueName("Once")
    const key = randomUUID()
    const first = await answerOf(await post(server, server.adminKey, "/v1/workspaces", { name }, key))
    expect(first).toMatchObject({ status: 201, replayed: null })
    expect(first.body.id).toEqual(expect.any(String))
    const again = await answerOf(await post(server, server.adminKey, "/v1/workspaces", { name }, key))
    expect(again).toEqual({ ...first, replayed: "true" })
    expect((await workspaceNames(server, server.adminKey)).filter((n) => n === name)).toHaveLength(1)
  })

  it("refuses the same key with another body (422), and creates nothing for it", async () => {
    const key = randomUUID()
    const name = uniqueName("First")
    const other = uniqueName("Other")
    expect((await post(server, server.adminKey, "/v1/workspaces", { name }, key)).status).toBe(201)
    const refused = await post(server, server.adminKey, "/v1/workspaces", { name: other }, key)
    expect(refused.status).toBe(422)
    expect(await refused.json()).toEqual({
      success: false,
      error: { code: "idempotency_key_reused", type: "invalid_request_error", message: expect.any(String), param: null }
    })
    expect(await workspaceNames(server, server.adminKey)).not.toContain(other)
  })

  it("keeps keys per credential: another key's request with the same key runs", async () => {
    const narrow = await post(server, server.adminKey, "/v1/api-keys/organisation/service", {
      name: "second credential",
      scopes: ["workspaces.create", "workspaces.list"]
    })
    expect(narrow.status).toBe(201)
    const otherKey = (await jsonOf(narrow)).key as string
    const key = randomUUID()
    const [a, b] = [uniqueName("Mine"), uniqueName("Theirs")]
    expect((await post(server, server.adminKey, "/v1/workspaces", { name: a }, key)).status).toBe(201)
    const theirs = await post(server, otherKey, "/v1/workspaces", { name: b }, key)
    expect(theirs.status).toBe(201)
    expect(theirs.headers.get("idempotent-replayed")).toBeNull()
    expect(await workspaceNames(server, server.adminKey)).toEqual(expect.arrayContaining([a, b]))
  })

  it("runs concurrent duplicates once: the others get the first answer or 409 while it runs", async () => {
    const name = uniqueName("Racing")
    const key = randomUUID()
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(server, server.adminKey, "/v1/workspaces", { name }, key).then(answerOf))
    )
    const created = answers.filter((a) => a.status === 201)
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1)
    for (const other of answers.filter((a) => a.status !== 201)) {
      expect(other).toMatchObject({ status: 409, body: { error: { code: "idempotency_key_in_use" } } })
    }
    expect((await workspaceNames(server, server.adminKey)).filter((n) => n === name)).toHaveLength(1)
  })

  it("frees the key when the store failed the request (503): the retry creates", async () => {
    const name = uniqueName("Retried")
    const key = randomUUID()
    outage = "audit"
    const failed = await post(server, server.adminKey, "/v1/workspaces", { name }, key)
    outage = "none"
    expect(failed.status).toBe(503)
    expect((await jsonOf(failed)).error.code).toBe("store_unavailable")
    const retried = await answerOf(await post(server, server.adminKey, "/v1/workspaces", { name }, key))
    expect(retried).toMatchObject({ status: 201, replayed: null })
    expect((await workspaceNames(server, server.adminKey)).filter((n) => n === name)).toHaveLength(1)
  })

  it("answers 503 store_unavailable, and runs nothing, when the store cannot check the key", async () => {
    const name = uniqueName("Unchecked")
    outage = "entities"
    const refused = await post(server, server.adminKey, "/v1/workspaces", { name }, randomUUID())
    outage = "none"
    expect(refused.status).toBe(503)
    expect(refused.headers.get("retry-after")).not.toBeNull()
    expect((await jsonOf(refused)).error.code).toBe("store_unavailable")
    expect(await workspaceNames(server, server.adminKey)).not.toContain(name)
  })

  it("leaves render alone: it reads its own body, creates nothing, and answers every time", async () => {
    const created = await server.send("POST", "/v1/prompts", {
      workspace_id: server.workspaceId,
      name: uniqueName("Rendered"),
      string: "Hello {{name}}",
      model: "gpt-4o"
    })
    expect(created.status).toBe(201)
    const id = (await jsonOf(created)).id as string
    const key = randomUUID()
    for (const name of ["Ada", "Grace"]) {
      const rendered = await post(server, server.adminKey, `/v1/prompts/${id}/render`, { variables: { name } }, key)
      expect(rendered.status).toBe(200)
      expect(rendered.headers.get("idempotent-replayed")).toBeNull()
      expect(JSON.stringify(await jsonOf(rendered))).toContain(`Hello ${name}`)
    }
  })

  it("refuses a malformed key (400) and leaves requests without one alone", async () => {
    const name = uniqueName("Malformed")
    const refused = await post(server, server.adminKey, "/v1/workspaces", { name }, "x".repeat(256))
    expect(refused.status).toBe(400)
    expect((await jsonOf(refused)).error).toMatchObject({ code: "invalid_request", param: "Idempotency-Key" })
    expect(await workspaceNames(server, server.adminKey)).not.toContain(name)
    const plain = uniqueName("Plain")
    expect((await post(server, server.adminKey, "/v1/workspaces", { name: plain })).status).toBe(201)
    expect((await post(server, server.adminKey, "/v1/workspaces", { name: plain })).status).toBe(409)
  })
})

describe.skipIf(postgresUrl === undefined)("Idempotency-Key across two processes on one PostgreSQL", () => {
  let a: ServerProcess
  let b: ServerProcess
  let admin: string
  const cleanups: Array<() => Promise<unknown> | unknown> = []

  beforeAll(async () => {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    const env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64")
    }
    a = await startServerProcess(env)
    cleanups.push(() => a.child.kill("SIGKILL"))
    b = await startServerProcess(env)
    cleanups.push(() => b.child.kill("SIGKILL"))
    admin = a.adminKey!
  }, 120_000)

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it("concurrent duplicates sent to both processes create once, and a retry to either replays", async () => {
    const name = uniqueName("Shared")
    const key = randomUUID()
    const answers = await Promise.all(
      Array.from(
        { length: 8 },
        (_, i) => post(i % 2 === 0 ? a : b, admin, "/v1/workspaces", { name }, key).then(answerOf)
      )
    )
    const created = answers.filter((answer) => answer.status === 201)
    expect(created.length).toBeGreaterThanOrEqual(1)
    expect(new Set(created.map((answer) => answer.body.id)).size).toBe(1)
    for (const other of answers.filter((answer) => answer.status !== 201)) {
      expect(other).toMatchObject({ status: 409, body: { error: { code: "idempotency_key_in_use" } } })
    }
    expect((await workspaceNames(a, admin)).filter((n) => n === name)).toHaveLength(1)
    const id = created[0]!.body.id
    for (const target of [a, b]) {
      const replayed = await answerOf(await post(target, admin, "/v1/workspaces", { name }, key))
      expect(replayed).toMatchObject({ status: 201, replayed: "true", body: { id } })
    }
  })
})
