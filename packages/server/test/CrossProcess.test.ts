/**
 * Two `serve` processes on one PostgreSQL: a change made through one reaches the other's caches within 1 s
 * (the change feed's LISTEN/NOTIFY), falls back to the caches' lifetimes while the listening connection is down,
 * and is back within 1 s once it listens again. With Redis, the two enforce one shared rate limit.
 */
import { KEY_CACHE_TTL_MS } from "@gateway-control/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { query } from "./support/Databases.ts"
import { call, json, postgresUrl, startTwoProcesses, type TwoProcesses, within } from "./support/TwoProcesses.ts"

const redisUrl = process.env.TEST_REDIS_URL
if (redisUrl === undefined) {
  // Loud on purpose: a missing Redis must not read as a pass; CI sets REQUIRE_REDIS=1.
  if (process.env.REQUIRE_REDIS === "1") throw new Error("REQUIRE_REDIS=1 but TEST_REDIS_URL is not set")
  console.warn("\n*** shared rate limits across processes SKIPPED: TEST_REDIS_URL is not set ***\n")
}

describe.skipIf(postgresUrl === undefined)("two processes on one PostgreSQL", () => {
  let processes: TwoProcesses
  let a: TwoProcesses["a"]
  let b: TwoProcesses["b"]
  let admin: string
  let workspaceId: string
  let databaseName: string

  beforeAll(async () => {
    processes = await startTwoProcesses(redisUrl === undefined ? {} : { REDIS_URL: redisUrl })
    ;({ a, admin, b, databaseName, workspaceId } = processes)
  }, 120_000)

  afterAll(() => processes?.close())

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
