/**
 * The bench's printout: one table of every figure beside its baseline and its target, then the details.
 */
import type { benchAuditChainCeiling, benchAuditedWrites } from "./legs/auditedWrites.ts"
import type { benchFirstStart, benchIdleFootprint } from "./legs/footprint.ts"
import type { benchListing } from "./legs/listing.ts"
import type { benchRenderEfficiency, benchRenderLatency } from "./legs/renderEfficiency.ts"
import type { benchRenderer } from "./legs/renderer.ts"
import type { benchMemoryStoreUnderLoad, benchPgliteUnderLoad } from "./legs/underLoad.ts"
import { type LoadResult, round } from "./support.ts"

export interface BenchResults {
  readonly date: string
  readonly machine: { readonly cpus: number; readonly cpu: string | undefined; readonly node: string }
  readonly render: {
    readonly gateway_control: LoadResult
    readonly bare_node_http: LoadResult
    readonly hono: LoadResult
    readonly ours_over_bare: number
    readonly ours_over_hono: number
    readonly key_with_limits: LoadResult
    readonly limited_over_unlimited: number
  }
  readonly render_efficiency: Awaited<ReturnType<typeof benchRenderEfficiency>>
  readonly render_latency_at_fixed_rate: Awaited<ReturnType<typeof benchRenderLatency>>
  readonly under_load: {
    readonly pglite: Awaited<ReturnType<typeof benchPgliteUnderLoad>>
    readonly memory_store: Awaited<ReturnType<typeof benchMemoryStoreUnderLoad>>
  }
  readonly authenticated_read: {
    readonly gateway_control: LoadResult
    readonly bare_trivial_get: LoadResult
    readonly ours_over_bare: number
  }
  readonly renderer: Record<
    string,
    ReturnType<typeof benchRenderer>[string] & { ours_over_wontache: number; ours_over_mustache: number }
  >
  readonly listing: ReadonlyArray<Awaited<ReturnType<typeof benchListing>>>
  readonly memory: { rss_mb_after_render_load: number; rss_mb_after_second_run: number; growth_mb: number }
  readonly idle_memory: Awaited<ReturnType<typeof benchIdleFootprint>>
  readonly first_start: Awaited<ReturnType<typeof benchFirstStart>>
  readonly audited_writes: Awaited<ReturnType<typeof benchAuditedWrites>> | undefined
  readonly audit_chain_ceiling: ReturnType<typeof benchAuditChainCeiling>
}

const verdict = (met: boolean) => (met ? "met" : "missed")

/** One row: figure, ours, baseline, ours against the baseline, target, whether it is met. */
type Row = readonly [string, string | number, string | number, string, string, string]

const summaryRows = (r: BenchResults): Array<Row> => {
  const idle = (store: string, code: string, nodeArgs = "") =>
    r.idle_memory.gateway_control.find((l) => l.store === store && l.code === code && l.node_args === nodeArgs)!
  const start = (store: string, code: string) =>
    r.first_start.gateway_control.find((l) => l.store === store && l.code === code)!
  const idleRow = (what: string, rss: number, targetMb: number): Row => [
    `idle RSS, ${what} (MB)`,
    rss,
    r.idle_memory.bare_node_http.rss,
    `+${round(rss - r.idle_memory.bare_node_http.rss, 1)} MB`,
    `≤ ${targetMb} MB`,
    verdict(rss <= targetMb)
  ]
  const startRow = (what: string, leg: { ready_ms: number; cpu_ms: number }): Row => [
    `first start, ${what} (ms to /readyz)`,
    leg.ready_ms,
    r.first_start.bare_node_http.ready_ms,
    `CPU ${leg.cpu_ms} ms`,
    "≤ 2,000 ms",
    verdict(leg.ready_ms <= 2000)
  ]
  const latency = r.render_latency_at_fixed_rate
  const loaded = r.under_load.pglite
  const loadedRound = loaded.latency.rounds.at(-1)!
  const residentRow = (what: string, rss: number, targetMb: number): Row => [
    `RSS after the render load, ${what} (MB)`,
    rss,
    r.idle_memory.bare_node_http.rss,
    `+${round(rss - r.idle_memory.bare_node_http.rss, 1)} MB`,
    `≤ ${targetMb} MB`,
    verdict(rss <= targetMb)
  ]
  const lastRound = latency.rounds.at(-1)!
  const rows: Array<Row> = [
    [
      "render, 50 connections (req/s)",
      r.render.gateway_control.requestsPerSecond,
      r.render.bare_node_http.requestsPerSecond,
      `${r.render.ours_over_bare}×`,
      "≥ 0.5×",
      verdict(r.render.ours_over_bare >= 0.5)
    ],
    [
      "render, server CPU per request (µs)",
      r.render_efficiency.gateway_control_us,
      r.render_efficiency.bare_node_http_us,
      `${r.render_efficiency.ours_over_bare}×`,
      "≤ 2×",
      verdict(r.render_efficiency.ours_over_bare <= 2)
    ],
    [
      "render p99 at 1,000 req/s, 10 connections (ms)",
      lastRound.gateway_control.p99,
      lastRound.bare_node_http.p99,
      `+${latency.added_p99_ms} ms (median of rounds)`,
      "≤ +3 ms",
      verdict(latency.added_p99_ms <= 3)
    ],
    [
      `the same with the background jobs running: MCP and credential health checkers, last-used flush of ${loaded.keys} ` +
      `keys, rotation sweep ending ${loaded.transitions_ended} transitions; both servers ${
        loaded.node_args.join(" ")
      } (ms)`,
      loadedRound.gateway_control.p99,
      loadedRound.bare_node_http.p99,
      `+${loaded.latency.added_p99_ms} ms (median of rounds)`,
      "≤ +3 ms",
      verdict(loaded.latency.added_p99_ms <= 3)
    ],
    [
      "render p99, 50 connections (ms; queueing)",
      r.render.gateway_control.p99,
      r.render.bare_node_http.p99,
      `+${r.render.gateway_control.p99 - r.render.bare_node_http.p99} ms`,
      "report",
      "—"
    ],
    [
      "render, key with 2 rate limits (req/s, 50 connections)",
      r.render.key_with_limits.requestsPerSecond,
      `without limits: ${r.render.gateway_control.requestsPerSecond}`,
      `${r.render.limited_over_unlimited}×`,
      "report",
      "—"
    ],
    residentRow(`PGlite, jobs running, installed, ${loaded.node_args.join(" ")}`, loaded.rss_after_render.rss, 300),
    residentRow("memory store, installed", r.under_load.memory_store.rss_after_render.rss, 150),
    idleRow("memory store, built", idle("memory", "built").rss, 100),
    idleRow("memory store, npm start", idle("memory", "npm start").rss, 100),
    idleRow("PGlite, built", idle("pglite", "built").rss, 200),
    idleRow("PGlite, built, --v8-pool-size=1", idle("pglite", "built", "--v8-pool-size=1").rss, 200),
    idleRow("PGlite, npm start", idle("pglite", "npm start").rss, 200),
    startRow("PGlite, npm start", start("pglite", "npm start")),
    startRow("PGlite, built", start("pglite", "built"))
  ]
  const writes = r.audited_writes
  if (writes !== undefined) {
    for (const kind of ["prompts", "api_keys"] as const) {
      const one = writes.runs[0]![kind]
      const four = writes.runs[2]![kind]
      const ratio = writes.four_over_one[kind]
      rows.push([
        `audited writes, ${kind}, 4 processes (writes/s; p99 ms)`,
        `${four.writes_per_second}; ${four.p99}`,
        `1 process: ${one.writes_per_second}; ${one.p99}`,
        `${ratio}×`,
        "≥ 2× and ≥ 1,000/s",
        verdict(ratio >= 2 && four.writes_per_second >= 1000)
      ])
    }
  }
  const ceiling = r.audit_chain_ceiling
  if (ceiling !== undefined) {
    rows.push([
      "audit appends, SQL alone, 8 clients (appends/s)",
      ceiling.chains.clients_8,
      `one chain: ${ceiling.one_chain.clients_8}`,
      `${ceiling.chains_over_one_chain_8_clients}×`,
      "report",
      "—"
    ])
  }
  return rows
}

const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>) => [
  `| ${head.join(" | ")} |`,
  `|${head.map(() => "---").join("|")}|`,
  ...rows.map((row) => `| ${row.join(" | ")} |`)
]

/** The share of a paced run's time the hypervisor took from the servers' core, where /proc/stat tells it. */
const stolen = (run: { readonly core0_stolen_pct?: number }) => run.core0_stolen_pct ?? "–"
const residentCells = (m: { rss: number; anonymous: number; file: number }) => [m.rss, m.anonymous, m.file]

export const printReport = (r: BenchResults) => {
  const load = (name: string, l: LoadResult) => [name, l.requestsPerSecond, l.p50, l.p99, l.errors]
  const lines = [
    `gateway-control benchmarks, ${r.date}, ${r.machine.cpus} × ${r.machine.cpu}, Node ${r.machine.node}`,
    "",
    ...table(["figure", "gateway-control", "baseline", "against it", "target", ""], summaryRows(r)),
    "",
    ...table(["HTTP (50 connections)", "req/s", "p50 ms", "p99 ms", "errors"], [
      load("render: gateway-control (PGlite), key without limits", r.render.gateway_control),
      load("render: gateway-control (PGlite), key with 2 limits (in-memory counters)", r.render.key_with_limits),
      load("render: bare node:http", r.render.bare_node_http),
      load("render: Hono", r.render.hono),
      load("authenticated read: GET /v1/mcp-servers/{id}", r.authenticated_read.gateway_control),
      load("trivial GET: bare node:http", r.authenticated_read.bare_trivial_get)
    ]),
    "",
    `render ours/bare ${r.render.ours_over_bare}, ours/Hono ${r.render.ours_over_hono}; ` +
    `read ours/bare ${r.authenticated_read.ours_over_bare}; render with limits/without ${r.render.limited_over_unlimited}`,
    "",
    ...table(
      [
        "render at 1,000 req/s, 10 connections",
        "p50 ms",
        "p99 ms",
        "max ms",
        "event loop delay p99/max ms",
        "GC pauses",
        "stolen %"
      ],
      r.render_latency_at_fixed_rate.rounds.flatMap((round, i) => [
        [
          `round ${i + 1}: gateway-control`,
          round.gateway_control.p50,
          round.gateway_control.p99,
          round.gateway_control.max,
          `${round.gateway_control.event_loop?.delay_p99_ms}/${round.gateway_control.event_loop?.delay_max_ms}`,
          `${round.gateway_control.event_loop?.gc_pauses}, ${round.gateway_control.event_loop?.gc_total_ms} ms, ` +
          `max ${round.gateway_control.event_loop?.gc_max_ms} ms`,
          stolen(round.gateway_control)
        ],
        [
          `round ${i + 1}: bare node:http`,
          round.bare_node_http.p50,
          round.bare_node_http.p99,
          round.bare_node_http.max,
          "",
          "",
          stolen(round.bare_node_http)
        ]
      ])
    ),
    "",
    ...table(
      ["render at 1,000 req/s, background jobs running", "p50 ms", "p99 ms", "max ms", "errors", "stolen %"],
      r.under_load.pglite.latency.rounds.flatMap((round, i) => [
        [
          `round ${i + 1}: gateway-control`,
          round.gateway_control.p50,
          round.gateway_control.p99,
          round.gateway_control.max,
          round.gateway_control.errors,
          stolen(round.gateway_control)
        ],
        [
          `round ${i + 1}: bare node:http`,
          round.bare_node_http.p50,
          round.bare_node_http.p99,
          round.bare_node_http.max,
          round.bare_node_http.errors,
          stolen(round.bare_node_http)
        ]
      ])
    ),
    "",
    ...table(["RSS after the render load (50 connections)", "RSS MB", "anonymous MB", "file-backed MB", "req/s"], [
      [
        "PGlite, background jobs running",
        ...residentCells(r.under_load.pglite.rss_after_render),
        r.under_load.pglite.render.requestsPerSecond
      ],
      [
        "memory store",
        ...residentCells(r.under_load.memory_store.rss_after_render),
        r.under_load.memory_store.render.requestsPerSecond
      ]
    ]),
    "",
    ...table(["idle RSS 5 s after start", "RSS MB", "anonymous MB", "file-backed MB"], [
      [
        "bare node:http",
        r.idle_memory.bare_node_http.rss,
        r.idle_memory.bare_node_http.anonymous,
        r.idle_memory.bare_node_http.file
      ],
      ...r.idle_memory.gateway_control.map((l) => [
        `${l.store}, ${l.code}${l.node_args === "" ? "" : `, ${l.node_args}`}`,
        l.rss,
        l.anonymous,
        l.file
      ])
    ]),
    "",
    ...table(["first start on a new DATA_DIR", "ready ms", "CPU ms"], [
      ["bare node:http", r.first_start.bare_node_http.ready_ms, r.first_start.bare_node_http.cpu_ms],
      ...r.first_start.gateway_control.map((l) => [`${l.store}, ${l.code}`, l.ready_ms, l.cpu_ms])
    ]),
    "",
    ...(r.audited_writes === undefined ? [] : table(
      ["audited writes (32 connections)", "writes/s", "p50 ms", "p99 ms", "server CPU ms/write", "lock-wait share"],
      r.audited_writes.runs.flatMap((run) =>
        (["prompts", "api_keys"] as const).map((kind) => {
          const w = run[kind]
          return [
            `${run.processes} process(es), ${kind}`,
            w.writes_per_second,
            w.p50,
            w.p99,
            w.server_cpu_ms_per_write,
            w.lock_wait_share
          ]
        })
      )
    )),
    "",
    ...table(
      ["renderer (renders/s)", "ours", "mustache", "wontache", "ours/wontache", "ours/mustache"],
      Object.entries(r.renderer).map(([name, x]) => [
        name,
        x.ours,
        x.mustache,
        x.wontache,
        x.ours_over_wontache,
        x.ours_over_mustache
      ])
    ),
    "",
    ...table(
      ["listing (4 connections)", "p50 ms first page", "p50 ms deep page"],
      r.listing.flatMap((leg) => [
        [`${leg.store}, 1,000 integrations`, leg.small.first.p50, leg.small.deep.p50],
        [`${leg.store}, 100,000 integrations`, leg.large.first.p50, leg.large.deep.p50],
        [`${leg.store}, 100,000 / 1,000`, leg.first_page_large_over_small, leg.deep_page_large_over_small]
      ])
    ),
    "",
    `memory: RSS ${r.memory.rss_mb_after_render_load} MB after the render load, ${r.memory.rss_mb_after_second_run} MB ` +
    `after a second run (growth ${r.memory.growth_mb} MB)`
  ]
  console.log(lines.join("\n"))
}
