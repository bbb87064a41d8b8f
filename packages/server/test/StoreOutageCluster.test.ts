/**
 * The outage contract against a real database outage: a `serve` process on a PostgreSQL server of the test's own
 * (support/PrivatePostgres.ts), under a bounded load of renders and writes, while the server is stopped for 30 s
 * and started again. Asserted, as the README's "Operations: the store outage contract" promises:
 * - every render of a cached prompt with a cached key answers 200, and those during the outage carry
 *   `x-service-snapshot-age`;
 * - every write during the outage answers 503 `store_unavailable` in the envelope with `Retry-After`, within 2 s;
 * - `/readyz` says `degraded` on every probe of the outage, and `/healthz` answers 200;
 * - writes succeed again within 10 s of the database's return, from the same process (no restart), and renders
 *   come from the store again.
 *
 * Without Debian's PostgreSQL binaries the suite is skipped with one loud line, or fails when
 * `REQUIRE_PG_CLUSTER=1` (set by `.ci/run`).
 */
import { STORE_RETRY_AFTER_SECONDS } from "@gateway-control/adapters-http"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { availableOrSkip } from "./support/PgCluster.ts"
import { PRIVATE_POSTGRES_BINARIES, type PrivatePostgres, startPrivatePostgres } from "./support/PrivatePostgres.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = availableOrSkip(
  "The store outage test against a stopped PostgreSQL server",
  PRIVATE_POSTGRES_BINARIES,
  "REQUIRE_PG_CLUSTER"
)

const OUTAGE_MS = 30_000
const SNAPSHOT_AGE = "x-service-snapshot-age"

interface Sample {
  readonly kind: "render" | "write" | "readyz" | "healthz"
  readonly startedAt: number
  readonly endedAt: number
  readonly status: number
  readonly snapshotAge: string | null
  readonly retryAfter: string | null
  readonly body: string
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.runIf(available)("a PostgreSQL server stopped for 30 s under load", () => {
  let database: PrivatePostgres
  let server: ServerProcess

  beforeAll(async () => {
    database = await startPrivatePostgres()
    server = await startServerProcess({
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
      DATABASE_CONNECT_TIMEOUT_MS: "1000",
      DATABASE_STATEMENT_TIMEOUT_MS: "1000"
    })
  }, 90_000)

  afterAll(async () => {
    server?.child.kill("SIGKILL")
    await database?.remove()
  }, 60_000)

  it(
    "cached renders answer from the snapshot, writes 503 within 2 s, readiness degraded; recovery with no restart",
    async () => {
      const admin = server.adminKey!
      const call = async (kind: Sample["kind"], method: string, path: string, body?: unknown): Promise<Sample> => {
        const startedAt = performance.now()
        try {
          const response = await fetch(`${server.baseUrl}${path}`, {
            method,
            headers: {
              "x-service-api-key": admin,
              ...(body === undefined ? {} : { "content-type": "application/json" })
            },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(15_000)
          })
          return {
            kind,
            startedAt,
            endedAt: performance.now(),
            status: response.status,
            snapshotAge: response.headers.get(SNAPSHOT_AGE),
            retryAfter: response.headers.get("retry-after"),
            body: await response.text()
          }
        } catch (error) {
          return {
            kind,
            startedAt,
            endedAt: performance.now(),
            status: 0,
            snapshotAge: null,
            retryAfter: null,
            body: String(error)
          }
        }
      }

      const workspaces = JSON.parse((await call("write", "GET", "/v1/workspaces")).body) as {
        data: Array<{ id: string }>
      }
      const created = await call("write", "POST", "/v1/prompts", {
        workspace_id: workspaces.data[0]!.id,
        name: "Outage prompt",
        string: JSON.stringify([{ role: "user", content: "{{question}}" }]),
        model: "gpt-4o"
      })
      expect(created.status, created.body).toBe(201)
      const promptId = (JSON.parse(created.body) as { id: string }).id
      const render = () => call("render", "POST", `/v1/prompts/${promptId}/render`, { variables: { question: "up?" } })
      // Resolved once while the store answers: the key and the prompt reference are in the process's caches.
      expect((await render()).status).toBe(200)

      const samples: Array<Sample> = []
      let running = true
      let written = 0
      const loop = async (every: number, next: () => Promise<Sample>) => {
        while (running) {
          samples.push(await next())
          await sleep(every)
        }
      }
      // A bounded load: two render loops (~40 renders/s at most), writes every 250 ms, probes every 500 ms.
      const load = Promise.all([
        loop(50, render),
        loop(50, render),
        loop(250, () => call("write", "POST", "/v1/workspaces", { name: `Outage ${written++}` })),
        loop(500, () => call("readyz", "GET", "/readyz")),
        loop(1_000, () => call("healthz", "GET", "/healthz"))
      ])
      try {
        await sleep(1_000)
        const stopping = performance.now()
        await database.stop()
        const stopped = performance.now()
        await sleep(OUTAGE_MS - (stopped - stopping))
        const starting = performance.now()
        await database.start()
        const back = performance.now()
        // Recovery: a write succeeds within 10 s of the database's return, without restarting the process.
        let recoveredAt: number | undefined
        while (recoveredAt === undefined && performance.now() - back < 15_000) {
          const ok = samples.find((s) => s.kind === "write" && s.startedAt >= back && s.status === 201)
          if (ok !== undefined) recoveredAt = ok.endedAt
          else await sleep(100)
        }
        // A few more seconds of load once recovered, for the renders after it.
        await sleep(2_000)
        running = false
        await load

        const during = (s: Sample) => s.startedAt >= stopped && s.endedAt <= starting
        const renders = samples.filter((s) => s.kind === "render")
        const report = {
          renders: renders.length,
          writes: samples.filter((s) => s.kind === "write").length,
          recoveryMs: recoveredAt === undefined ? undefined : Math.round(recoveredAt - back),
          slowestOutageWriteMs: Math.round(
            Math.max(0, ...samples.filter((s) => s.kind === "write" && during(s)).map((s) => s.endedAt - s.startedAt))
          )
        }
        console.info(`store outage test: ${JSON.stringify(report)}`)

        // Every render answered 200, before, during and after the outage.
        expect(renders.filter((s) => s.status !== 200).map((s) => `${s.status} ${s.body}`)).toEqual([])
        // During the outage, once past the caches' own lifetimes (2 s for references, 5 s for keys), every render
        // came from the snapshot and said how old it is.
        const snapshotRenders = renders.filter((s) => during(s) && s.startedAt >= stopped + 6_000)
        expect(snapshotRenders.length).toBeGreaterThan(100)
        for (const s of snapshotRenders) {
          expect(s.snapshotAge).toMatch(/^\d+$/)
          expect(Number(s.snapshotAge)).toBeLessThanOrEqual(Math.ceil((s.endedAt - stopping) / 1000) + 6)
        }
        // Every write of the outage answered 503 in the envelope with Retry-After, within 2 s.
        const writes = samples.filter((s) => s.kind === "write" && during(s))
        expect(writes.length).toBeGreaterThan(50)
        for (const s of writes) {
          expect({ status: s.status, retryAfter: s.retryAfter }).toEqual({
            status: 503,
            retryAfter: String(STORE_RETRY_AFTER_SECONDS)
          })
          expect(JSON.parse(s.body)).toMatchObject({ success: false, error: { code: "store_unavailable" } })
          expect(s.endedAt - s.startedAt).toBeLessThan(2_000)
        }
        // Readiness said degraded on every probe of the outage, steadily; liveness stayed 200 throughout.
        const probes = samples.filter((s) => s.kind === "readyz" && during(s))
        expect(probes.length).toBeGreaterThan(20)
        expect(new Set(probes.map((s) => `${s.status} ${(JSON.parse(s.body) as { status: string }).status}`)))
          .toEqual(new Set(["200 degraded"]))
        expect(samples.filter((s) => s.kind === "healthz" && s.status !== 200)).toEqual([])
        // Back within 10 s of the database's return, in the same process; renders come from the store again.
        expect(recoveredAt, database.log()).toBeDefined()
        expect(recoveredAt! - back).toBeLessThan(10_000)
        expect(server.child.exitCode).toBeNull()
        const after = await render()
        expect({ status: after.status, snapshotAge: after.snapshotAge }).toEqual({ status: 200, snapshotAge: null })
        const ready = await call("readyz", "GET", "/readyz")
        expect(JSON.parse(ready.body)).toEqual({ status: "ok" })
      } finally {
        running = false
        await load
      }
    },
    150_000
  )
})
