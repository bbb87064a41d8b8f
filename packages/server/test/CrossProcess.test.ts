/**
 * Two `serve` processes on one PostgreSQL: a change made through one reaches the other's caches within 1 s
 * (the change feed's LISTEN/NOTIFY), falls back to the caches' lifetimes while the listening connection is down,
 * and is back within 1 s once it listens again. With Redis, the two enforce one shared rate limit.
 */
import { KEY_CACHE_TTL_MS } from "@gateway-control/domain"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshDatabase, postgresUrl, query } from "./support/Databases.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const redisUrl = process.env.TEST_REDIS_URL
if (redisUrl === undefined) {
  // Loud on purpose: a missing Redis must not read as a pass; CI sets REQUIRE_REDIS=1.
  if (process.env.REQUIRE_REDIS === "1") throw new Error("REQUIRE_REDIS=1 but TEST_REDIS_URL is not set")
  console.warn("\n*** shared rate limits across processes SKIPPED: TEST_REDIS_URL is not set ***\n")
}

/** Calls `check` until it holds, for at most `withinMs`; the time it took. */
const within = async (withinMs: number, check: () => Promise<boolean>) => {
  const started = performance.now()
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return performance.now() - started
}

const call = (server: ServerProcess, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { "x-service-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })

const json = async <A>(response: Response, status: number): Promise<A> => {
  expect(response.status, await response.clone().text()).toBe(status)
  return (await response.json()) as A
}

describe.skipIf(postgresUrl === undefined)("two processes on one PostgreSQL", () => {
  let a: ServerProcess
  let b: ServerProcess
  let admin: string
  let workspaceId: string
  let databaseName: string
  const cleanups: Array<() => Promise<unknown> | unknown> = []

  beforeAll(async () => {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    databaseName = new URL(database.url).pathname.slice(1)
    const env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
      ...(redisUrl === undefined ? {} : { REDIS_URL: redisUrl })
    }
    // One after the other, so that the first bootstraps and prints the admin key.
    a = await startServerProcess(env)
    cleanups.push(() => a.child.kill("SIGKILL"))
    b = await startServerProcess(env)
    cleanups.push(() => b.child.kill("SIGKILL"))
    admin = a.adminKey!
    const workspaces = await json<{ data: Array<{ id: string }> }>(await call(a, admin, "GET", "/v1/workspaces"), 200)
    workspaceId = workspaces.data[0]!.id
  }, 120_000)

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  /** A new workspace key, made through A, that B has resolved (and so cached). */
  const keyKnownToB = async (extra: Record<string, unknown> = {}) => {
    const created = await json<{ id: string; key: string }>(
      await call(a, admin, "POST", "/v1/api-keys/workspace/service", {
        name: "cross-process",
        scopes: ["workspaces.list", "prompts.render"],
        workspace_id: workspaceId,
        ...extra
      }),
      201
    )
    expect((await call(b, created.key, "GET", "/v1/workspaces")).status).toBe(200)
    return created
  }

  const refusedByB = (key: string) => async () => (await call(b, key, "GET", "/v1/workspaces")).status === 401

  it("a key revoked through one is refused by the other within 1 s", async () => {
    const { id, key } = await keyKnownToB()
    expect((await call(a, admin, "DELETE", `/v1/api-keys/${id}`)).status).toBe(200)
    const tookMs = await within(1000, refusedByB(key))
    expect(tookMs).toBeLessThan(1000)
  })

  it("a label moved through one is what the other renders within 1 s", async () => {
    const created = await json<{ id: string }>(
      await call(a, admin, "POST", "/v1/prompts", {
        name: "moving",
        workspace_id: workspaceId,
        string: "v1",
        model: "m"
      }),
      201
    )
    await json(await call(a, admin, "PUT", `/v1/prompts/${created.id}`, { string: "v2" }), 200)
    await json(await call(a, admin, "PUT", `/v1/prompts/${created.id}/labels/canary`, { version: 1 }), 200)
    const rendered = async () => {
      const body = await json<{ data: { prompt: string } }>(
        await call(b, admin, "POST", `/v1/prompts/${created.id}@canary/render`, { variables: {} }),
        200
      )
      return body.data.prompt
    }
    expect(await rendered()).toBe("v1")
    await json(await call(a, admin, "PUT", `/v1/prompts/${created.id}/labels/canary`, { version: 2 }), 200)
    await within(1000, async () => (await rendered()) === "v2")
  })

  it("with the listening connection killed, caches fall back to their lifetime, and to 1 s once it is back", async () => {
    const during = await keyKnownToB()
    const downLines = () => b.stderr().split("\n").filter((line) => line.includes("listening connection is down"))
    const againLines = () => b.stderr().split("\n").filter((line) => line.includes("listening again"))
    const [downBefore, againBefore] = [downLines().length, againLines().length]
    // Every listener of the database, A's too, through a connection of the test's own.
    await query(
      postgresUrl!,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE application_name = 'gateway-control change feed' AND datname = '${databaseName}'`
    )
    await within(2000, async () => downLines().length > downBefore)

    expect((await call(a, admin, "DELETE", `/v1/api-keys/${during.id}`)).status).toBe(200)
    await within(KEY_CACHE_TTL_MS + 1500, refusedByB(during.key))

    await within(5000, async () => againLines().length > againBefore)
    const after = await keyKnownToB()
    expect((await call(a, admin, "DELETE", `/v1/api-keys/${after.id}`)).status).toBe(200)
    await within(1000, refusedByB(after.key))
  })

  it.skipIf(redisUrl === undefined)("sharing Redis, the two enforce one limit", async () => {
    const { key } = await keyKnownToB({ rate_limits: [{ type: "requests", unit: "rpm", value: 5 }] })
    // B's check above counted once; 10 more, half through each process, leave 4 answered.
    const statuses = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => call(i % 2 === 0 ? a : b, key, "GET", "/v1/workspaces").then((r) => r.status)
      )
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(4)
    expect(statuses.filter((s) => s === 429)).toHaveLength(6)
  })
})
