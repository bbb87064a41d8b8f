/**
 * `/metrics` on `METRICS_PORT`: Prometheus's text format, parsed here line by line; request series by route
 * template, method and status move with traffic, audit appends, render cache lookups and render durations are
 * counted, and the process basics are there. The API's own port does not serve it. On PGlite and on PostgreSQL
 * the requests' pool reports its connections and waits; across two processes on PostgreSQL the change feed's
 * lag is observed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cleanupsAfterAll, tempDirWith } from "./support/Cleanups.ts"
import { freePort, type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"
import {
  call,
  json,
  postgresUrl,
  revocationCrossing,
  startTwoProcesses,
  type TwoProcesses,
  within
} from "./support/TwoProcesses.ts"

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

/** The samples of an exposition; every line must be a comment, blank, or `name{labels} value`. */
const parseExposition = (text: string): ReadonlyArray<Sample> =>
  text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#")).map((line) => {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line)
    if (match === null) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]] = pair[2]
    }
    return { name: match[1], labels, value: Number(match[3]) }
  })

const valueOf = (samples: ReadonlyArray<Sample>, name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0)

/** A scrape of `url`, which must answer in Prometheus's text format. */
const scrapeAt = async (url: string) => {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
  return parseExposition(await response.text())
}

const cleanups = cleanupsAfterAll()
const tempDir = tempDirWith(cleanups, "gwc-metrics-")

describe("/metrics on METRICS_PORT", () => {
  let server: ServerProcess
  let metricsUrl: string
  beforeAll(async () => {
    const port = await freePort()
    metricsUrl = `http://127.0.0.1:${port}/metrics`
    server = await startServerProcess({ METRICS_PORT: String(port) })
  }, 60_000)
  afterAll(() => {
    server?.child.kill("SIGTERM")
    return server?.exited
  })

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { "x-service-api-key": server.adminKey!, "content-type": "application/json", ...init.headers }
    })

  const scrape = () => scrapeAt(metricsUrl)

  it("counts requests by route template, method and status, with their durations, and moves with traffic", async () => {
    const listed = { http_request_method: "GET", http_route: "/v1/workspaces", http_response_status_code: "200" }
    const before = await scrape()
    for (let i = 0; i < 3; i++) expect((await api("/v1/workspaces")).status).toBe(200)
    const workspace = await api("/v1/workspaces", { method: "POST", body: JSON.stringify({ name: "Metered" }) })
    expect(workspace.status).toBe(201)
    const { id } = await workspace.json() as { id: string }
    expect((await api(`/v1/workspaces/${id}`)).status).toBe(200)
    expect((await api("/v1/nothing-here")).status).toBe(404)
    const after = await scrape()

    const count = "http_server_request_duration_seconds_count"
    expect(valueOf(after, count, listed) - valueOf(before, count, listed)).toBe(3)
    // The template, never the id the client sent.
    expect(valueOf(after, count, { http_route: "/v1/workspaces/:workspaceId" })).toBe(1)
    expect(after.some((s) => s.labels.http_route?.includes(id))).toBe(false)
    expect(valueOf(after, count, { http_route: "(unmatched)", http_response_status_code: "404" })).toBeGreaterThan(0)
    expect(valueOf(after, "http_server_request_duration_seconds_bucket", { ...listed, le: "+Inf" })).toBe(
      valueOf(after, count, listed)
    )
    expect(valueOf(after, "http_server_request_duration_seconds_sum", listed)).toBeGreaterThan(0)
    // The create's audit record.
    expect(valueOf(after, "gateway_audit_appends_total")).toBeGreaterThan(
      valueOf(before, "gateway_audit_appends_total")
    )
    expect(valueOf(after, "gateway_audit_append_duration_seconds_count")).toBeGreaterThan(0)
  })

  it("counts render cache lookups, and serves the process basics", async () => {
    const workspaces = await (await api("/v1/workspaces")).json() as { data: Array<{ id: string }> }
    const created = await api("/v1/prompts", {
      method: "POST",
      body: JSON.stringify({
        workspace_id: workspaces.data[0].id,
        name: "Metered prompt",
        string: JSON.stringify([{ role: "user", content: "{{q}}" }]),
        model: "gpt-4o"
      })
    })
    expect(created.status).toBe(201)
    const { id } = await created.json() as { id: string }
    const before = await scrape()
    for (let i = 0; i < 2; i++) {
      const rendered = await api(`/v1/prompts/${id}/render`, {
        method: "POST",
        body: JSON.stringify({ variables: { q: "hi" } })
      })
      expect(rendered.status).toBe(200)
    }
    const after = await scrape()
    const lookups = (samples: ReadonlyArray<Sample>) => valueOf(samples, "gateway_render_cache_lookups_total")
    expect(lookups(after) - lookups(before)).toBe(2)
    // Each render's duration, from the use case itself (not the request's).
    const renders = (samples: ReadonlyArray<Sample>) => valueOf(samples, "gateway_render_duration_seconds_count")
    expect(renders(after) - renders(before)).toBe(2)
    expect(valueOf(after, "gateway_render_duration_seconds_sum")).toBeGreaterThan(
      valueOf(before, "gateway_render_duration_seconds_sum")
    )
    expect(valueOf(after, "gateway_render_duration_seconds_bucket", { le: "+Inf" })).toBe(renders(after))
    expect(valueOf(after, "gateway_render_cache_lookups_total", { result: "hit" })).toBeGreaterThan(0)
    expect(valueOf(after, "http_server_request_duration_seconds_count", { http_route: "/v1/prompts/:promptId/render" }))
      .toBe(2)
    expect(valueOf(after, "process_resident_memory_bytes")).toBeGreaterThan(0)
    expect(after.some((s) => s.name === "nodejs_eventloop_lag_p99_seconds")).toBe(true)
  })

  it("is not served on the API's port, nor at any other path of its own", async () => {
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404)
    expect((await fetch(metricsUrl.replace("/metrics", "/other"))).status).toBe(404)
  })
})

/** What every pool reports: its maximum, its connections by state, its queue, and each checkout's wait. */
const expectPoolSeries = (
  before: ReadonlyArray<Sample>,
  after: ReadonlyArray<Sample>,
  pool: string,
  checkouts: number
) => {
  const named = { db_client_connection_pool_name: pool }
  const waits = (samples: ReadonlyArray<Sample>) =>
    valueOf(samples, "db_client_connection_wait_time_seconds_count", named)
  expect(waits(after) - waits(before)).toBeGreaterThanOrEqual(checkouts)
  expect(valueOf(after, "db_client_connection_wait_time_seconds_bucket", { ...named, le: "+Inf" })).toBe(waits(after))
  for (const state of ["used", "idle"]) {
    expect(
      after.some((s) =>
        s.name === "db_client_connection_count" && s.labels.db_client_connection_pool_name === pool &&
        s.labels.db_client_connection_state === state
      )
    ).toBe(true)
  }
  expect(
    after.some((s) =>
      s.name === "db_client_connection_pending_requests" && s.labels.db_client_connection_pool_name === pool
    )
  )
    .toBe(true)
  return named
}

describe("database pool metrics on PGlite", () => {
  let server: ServerProcess
  let metricsUrl: string
  beforeAll(async () => {
    const port = await freePort()
    metricsUrl = `http://127.0.0.1:${port}/metrics`
    server = await startServerProcess({ GATEWAY_STORE: "pglite", DATA_DIR: tempDir(), METRICS_PORT: String(port) })
    cleanups.push(() => {
      server.child.kill("SIGTERM")
      return server.exited
    })
  }, 60_000)

  it("reports its one session as a pool of one, and each statement's wait for it", async () => {
    const before = await scrapeAt(metricsUrl)
    for (let i = 0; i < 3; i++) {
      await json(await call(server, server.adminKey!, "POST", "/v1/workspaces", { name: `Pooled ${i}` }), 201)
    }
    const after = await scrapeAt(metricsUrl)
    const named = expectPoolSeries(before, after, "pglite", 3)
    expect(valueOf(after, "db_client_connection_max", named)).toBe(1)
    // Used or idle, its one session is always open.
    expect(valueOf(after, "db_client_connection_count", named)).toBe(1)
  })
})

describe.skipIf(postgresUrl === undefined)("database pool and change-feed metrics on PostgreSQL", () => {
  let processes: TwoProcesses
  let metricsUrl: string
  beforeAll(async () => {
    const port = await freePort()
    metricsUrl = `http://127.0.0.1:${port}/metrics`
    processes = await startTwoProcesses({ DATABASE_POOL_SIZE: "4" }, { b: { METRICS_PORT: String(port) } })
  }, 120_000)
  afterAll(() => processes?.close())

  it("reports the requests' pool: its maximum, its open connections by state, and each checkout's wait", async () => {
    const { b, admin } = processes
    const before = await scrapeAt(metricsUrl)
    for (let i = 0; i < 3; i++) {
      await json(await call(b, admin, "POST", "/v1/workspaces", { name: `Pooled ${i}` }), 201)
    }
    await Promise.all(Array.from({ length: 8 }, async () => json(await call(b, admin, "GET", "/v1/workspaces"), 200)))
    const after = await scrapeAt(metricsUrl)
    const named = expectPoolSeries(before, after, "postgresql", 3)
    expect(valueOf(after, "db_client_connection_max", named)).toBe(4)
    const open = valueOf(after, "db_client_connection_count", named)
    expect(open).toBeGreaterThan(0)
    expect(open).toBeLessThanOrEqual(4)
  })

  it("observes the change feed's lag when a change made in one process reaches the other", async () => {
    const { a, admin, b, workspaceId } = processes
    const lags = async () => valueOf(await scrapeAt(metricsUrl), "gateway_change_feed_lag_seconds_count")
    const before = await scrapeAt(metricsUrl)
    const lagsBefore = valueOf(before, "gateway_change_feed_lag_seconds_count")
    const heardBefore = valueOf(before, "gateway_change_feed_notifications_total")
    // A revocation through A that B hears (and acts on) within a second.
    await revocationCrossing({ a, b }, admin, workspaceId, "lagging")
    await within(2000, async () => (await lags()) > lagsBefore)
    const after = await scrapeAt(metricsUrl)
    // Every notice heard from the other process carries its sending time.
    expect(valueOf(after, "gateway_change_feed_lag_seconds_count") - lagsBefore).toBe(
      valueOf(after, "gateway_change_feed_notifications_total") - heardBefore
    )
    // On one host, across loopback: well under a second each.
    const count = valueOf(after, "gateway_change_feed_lag_seconds_count")
    expect(valueOf(after, "gateway_change_feed_lag_seconds_sum") / count).toBeLessThan(1)
    expect(valueOf(after, "gateway_change_feed_lag_seconds_bucket", { le: "+Inf" })).toBe(count)
  })
})
