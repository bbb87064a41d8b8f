/**
 * `/metrics` as a real Prometheus reads it: Debian's `prometheus` binary on loopback scrapes a `serve` process's
 * `METRICS_PORT` every half second, and the test asks Prometheus's HTTP API (`/api/v1/query`), not the exposition
 * text, whether the request and audit series are there and move with traffic. A format Prometheus rejects, a
 * series it drops or a counter that does not move fails here even when our own parser would accept the text.
 *
 * Without the binary the suite is skipped with one loud line, or fails when `REQUIRE_PROMETHEUS=1` (set by
 * `.ci/run`, which installs Debian's `prometheus`).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort, type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const PROMETHEUS = "/usr/bin/prometheus"

const available = existsSync(PROMETHEUS)
if (!available) {
  if (process.env.REQUIRE_PROMETHEUS === "1") {
    throw new Error(`REQUIRE_PROMETHEUS=1 but ${PROMETHEUS} is missing (apt-get install prometheus)`)
  }
  console.warn(
    `\n*** Prometheus scrape tests SKIPPED: ${PROMETHEUS} is missing (apt-get install prometheus; REQUIRE_PROMETHEUS=1 fails instead) ***\n`
  )
}

interface QueryAnswer {
  readonly status: string
  readonly data: {
    readonly result: ReadonlyArray<{ readonly metric: Record<string, string>; readonly value: [number, string] }>
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.runIf(available)("Prometheus scraping /metrics", () => {
  let server: ServerProcess
  let prometheus: ChildProcess
  let prometheusUrl: string
  let prometheusLog = ""
  let dir: string

  beforeAll(async () => {
    const metricsPort = await freePort()
    server = await startServerProcess({ METRICS_PORT: String(metricsPort) })
    dir = mkdtempSync(join(tmpdir(), "gwc-prometheus-"))
    const config = join(dir, "prometheus.yml")
    // Prometheus reads YAML, and JSON is YAML: the configuration is built as data, not as text.
    writeFileSync(
      config,
      JSON.stringify({
        global: { scrape_interval: "500ms", scrape_timeout: "400ms" },
        scrape_configs: [{ job_name: "gateway-control", static_configs: [{ targets: [`127.0.0.1:${metricsPort}`] }] }]
      })
    )
    const port = await freePort()
    prometheusUrl = `http://127.0.0.1:${port}`
    prometheus = spawn(PROMETHEUS, [
      `--config.file=${config}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`
    ], { stdio: ["ignore", "pipe", "pipe"] })
    prometheus.stderr!.on("data", (chunk: Buffer) => prometheusLog += chunk.toString())
    for (let i = 0; i < 200; i++) {
      const ready = await fetch(`${prometheusUrl}/-/ready`).then((r) => r.ok, () => false)
      if (ready) return
      await sleep(100)
    }
    throw new Error(`Prometheus did not become ready:\n${prometheusLog}`)
  }, 90_000)

  afterAll(async () => {
    const stopped = prometheus === undefined || prometheus.exitCode !== null
      ? Promise.resolve()
      : new Promise((resolve) => prometheus.once("exit", resolve))
    prometheus?.kill("SIGTERM")
    server?.child.kill("SIGTERM")
    await Promise.all([stopped, server?.exited])
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  const query = async (promql: string): Promise<number | undefined> => {
    const response = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(promql)}`)
    const answer = (await response.json()) as QueryAnswer
    expect(answer.status, `${promql}\n${prometheusLog}`).toBe("success")
    const first = answer.data.result[0]
    return first === undefined ? undefined : Number(first.value[1])
  }

  /** Polls the query until `accept` holds, for at most 15 s (thirty scrapes). */
  const eventually = async (promql: string, accept: (value: number | undefined) => boolean) => {
    let last: number | undefined
    for (let i = 0; i < 150; i++) {
      last = await query(promql)
      if (accept(last)) return last
      await sleep(100)
    }
    throw new Error(`${promql} stayed at ${last}\nPrometheus:\n${prometheusLog}`)
  }

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: { "x-service-api-key": server.adminKey!, "content-type": "application/json", ...init.headers }
    })

  it("finds the target up, and the request series moving with traffic", async () => {
    await eventually(`up{job="gateway-control"}`, (value) => value === 1)
    const series =
      `sum(http_server_request_duration_seconds_count{http_route="/v1/workspaces",http_request_method="GET",http_response_status_code="200"})`
    const before = (await query(series)) ?? 0
    for (let i = 0; i < 4; i++) expect((await api("/v1/workspaces")).status).toBe(200)
    const after = await eventually(series, (value) => value !== undefined && value >= before + 4)
    expect(after).toBeGreaterThanOrEqual(before + 4)
    // The duration histogram is whole: its buckets end in +Inf, which equals the count.
    const inf = await query(
      `sum(http_server_request_duration_seconds_bucket{http_route="/v1/workspaces",http_response_status_code="200",le="+Inf"})`
    )
    expect(inf).toBe(after)
  }, 60_000)

  it(
    "finds the audit and render series moving with an audited change and renders, and the process basics",
    async () => {
      const appends = `sum(gateway_audit_appends_total)`
      const before = (await query(appends)) ?? 0
      const workspaces = (await (await api("/v1/workspaces")).json()) as { data: ReadonlyArray<{ id: string }> }
      const created = await api("/v1/prompts", {
        method: "POST",
        body: JSON.stringify({
          workspace_id: workspaces.data[0]!.id,
          name: "Scraped prompt",
          string: JSON.stringify([{ role: "user", content: "{{q}}" }]),
          model: "gpt-4o"
        })
      })
      expect(created.status).toBe(201)
      await eventually(appends, (value) => value !== undefined && value > before)
      expect(await eventually(`sum(gateway_audit_append_duration_seconds_count)`, (value) => (value ?? 0) > 0))
        .toBeGreaterThan(0)

      const { id } = (await created.json()) as { id: string }
      const lookups = `sum(gateway_render_cache_lookups_total)`
      const rendersBefore = (await query(lookups)) ?? 0
      for (let i = 0; i < 3; i++) {
        const rendered = await api(`/v1/prompts/${id}/render`, {
          method: "POST",
          body: JSON.stringify({ variables: { q: "hi" } })
        })
        expect(rendered.status).toBe(200)
      }
      await eventually(lookups, (value) => value !== undefined && value >= rendersBefore + 3)
      expect(await eventually(`process_resident_memory_bytes{job="gateway-control"}`, (value) => (value ?? 0) > 0))
        .toBeGreaterThan(0)
    },
    60_000
  )
})
