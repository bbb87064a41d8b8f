/**
 * `npm run bench`: gateway-control's hot paths measured side by side with their baselines, in one run.
 *
 * Servers are pinned to core 0 and this process (the load generator) to core 1 when `taskset` exists
 * (the audited-writes leg lets the OS place its servers, which share the cores with PostgreSQL). Builds the
 * packages first, as the idle-memory and first-start legs measure the built server too. Prints one table of
 * every figure beside its baseline and target, then the details, and writes bench/results/latest.json.
 * Durations: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3). With DATABASE_URL (and `psql`)
 * it also runs the PostgreSQL legs, in throwaway databases next to that URL's. Benchmarks never fail: they
 * measure.
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { cpus, totalmem } from "node:os"
import { join } from "node:path"
import { benchAuditChainCeiling, benchAuditedWrites } from "./legs/auditedWrites.ts"
import { benchFirstStart, benchIdleFootprint } from "./legs/footprint.ts"
import { benchListing } from "./legs/listing.ts"
import {
  benchRenderEfficiency,
  benchRenderLatency,
  eventLoopDelayFile,
  eventLoopDelayPreload
} from "./legs/renderEfficiency.ts"
import { benchRenderer } from "./legs/renderer.ts"
import { benchMemoryStoreUnderLoad, benchPgliteUnderLoad } from "./legs/underLoad.ts"
import { printReport } from "./report.ts"
import {
  bin,
  CONNECTIONS,
  createRenderPrompt,
  DURATION,
  hasTaskset,
  json,
  load,
  log,
  pinLoadGenerator,
  prepare,
  renderOptions,
  root,
  round,
  rssMb,
  startServer,
  WARMUP
} from "./support.ts"

pinLoadGenerator()

const main = async () => {
  const started = new Date()
  log("building the packages (the built server is measured too)")
  execFileSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] })

  const firstStart = await benchFirstStart()
  const idle = await benchIdleFootprint()

  log("renderer alone")
  const renderer = benchRenderer()

  log("preparing a PGlite store")
  const small = await prepare(1_000, "pglite")
  const eventLoopFile = eventLoopDelayFile()
  const preload = eventLoopDelayPreload(eventLoopFile)
  // The store holds 1,000 MCP integrations (for the listing leg), none of them reachable: the health checker
  // is off for these render legs; the point-6 legs below run it with every other background job.
  const startOurs = () =>
    startServer(
      bin,
      ["serve"],
      {
        ...small.env,
        ...preload.env,
        MCP_HEALTH_INTERVAL_MS: "0"
      },
      "/healthz",
      { nodeArgs: preload.nodeArgs }
    )
  let ours = await startOurs()
  await createRenderPrompt(ours, small)
  const bare = await startServer(join(root, "bench/baselines/bare.mjs"), [], {}, "/ping")

  log("render: gateway-control")
  const renderOurs = await load(renderOptions(ours.url, small.key))
  const rssAfterFirst = rssMb(ours.child.pid!)
  log("render: gateway-control, second identical run (memory growth)")
  await load(renderOptions(ours.url, small.key))
  const rssAfterSecond = rssMb(ours.child.pid!)
  log("render: bare node:http")
  const renderBare = await load(renderOptions(bare.url))
  log("trivial GET: bare node:http")
  const readBare = await load({ url: `${bare.url}/ping` })

  const efficiency = await benchRenderEfficiency(ours, small.key, bare)
  const latency = await benchRenderLatency(ours, small.key, bare, eventLoopFile)
  await ours.stop()
  // Issue #31 point 6: the same p99 with every background job at work, and the memory after the render load.
  const underLoad = await benchPgliteUnderLoad(small)
  const memoryStore = await benchMemoryStoreUnderLoad()
  ours = await startOurs()
  await bare.stop()

  const auth = { "x-service-api-key": small.key, "content-type": "application/json" }
  // The same render with a key that has rate limits (never reached): what counting each request costs, here in
  // this process's memory (no REDIS_URL).
  const limited = await json(`${ours.url}/v1/api-keys/workspace/service`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      name: "bench limited",
      workspace_id: small.workspaceId,
      scopes: ["prompts.render"],
      rate_limits: [{ type: "requests", unit: "rps", value: 1_000_000_000 }, {
        type: "requests",
        unit: "rpd",
        value: 1_000_000_000
      }]
    })
  })
  log("render: gateway-control, a key with rate limits")
  const renderLimited = await load(renderOptions(ours.url, String(limited.key)))

  const integration = await json(`${ours.url}/v1/mcp-integrations`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ name: "Bench MCP", url: "https://mcp.example.com", auth_type: "none", transport: "http" })
  })
  const mcpServer = await json(`${ours.url}/v1/mcp-servers`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ name: "Bench server", mcp_integration_id: integration.id, workspace_id: small.workspaceId })
  })
  log("authenticated read: gateway-control")
  const readOurs = await load({
    url: `${ours.url}/v1/mcp-servers/${mcpServer.id}`,
    headers: { "x-service-api-key": small.key }
  })

  const listings = [await benchListing("pglite", { prepared: small, server: ours })]
  if (process.env.DATABASE_URL !== undefined) listings.push(await benchListing("postgres"))
  else log("listing on PostgreSQL skipped: DATABASE_URL is not set")

  const hono = await startServer(join(root, "bench/baselines/hono.mjs"), [], {}, "/ping")
  log("render: Hono")
  const renderHono = await load(renderOptions(hono.url))
  await hono.stop()

  let writes: Awaited<ReturnType<typeof benchAuditedWrites>> | undefined
  let chainCeiling: ReturnType<typeof benchAuditChainCeiling>
  if (process.env.DATABASE_URL !== undefined) {
    writes = await benchAuditedWrites()
    chainCeiling = benchAuditChainCeiling()
  } else log("audited writes skipped: DATABASE_URL is not set")

  const rendererRatios = Object.fromEntries(
    Object.entries(renderer).map(([name, r]) => [name, {
      ...r,
      ours_over_wontache: round(r.ours / r.wontache, 2),
      ours_over_mustache: round(r.ours / r.mustache, 2)
    }])
  )
  const results = {
    date: started.toISOString(),
    machine: {
      cpus: cpus().length,
      cpu: cpus()[0]?.model,
      memory_gb: round(totalmem() / 2 ** 30, 1),
      node: process.version,
      pinned: hasTaskset
    },
    settings: { duration_s: DURATION, warmup_s: WARMUP, connections: CONNECTIONS },
    render: {
      gateway_control: renderOurs,
      bare_node_http: renderBare,
      hono: renderHono,
      ours_over_bare: round(renderOurs.requestsPerSecond / renderBare.requestsPerSecond, 3),
      ours_over_hono: round(renderOurs.requestsPerSecond / renderHono.requestsPerSecond, 3),
      key_with_limits: renderLimited,
      limited_over_unlimited: round(renderLimited.requestsPerSecond / renderOurs.requestsPerSecond, 3)
    },
    render_efficiency: efficiency,
    render_latency_at_fixed_rate: latency,
    under_load: { pglite: underLoad, memory_store: memoryStore },
    authenticated_read: {
      gateway_control: readOurs,
      bare_trivial_get: readBare,
      ours_over_bare: round(readOurs.requestsPerSecond / readBare.requestsPerSecond, 3)
    },
    renderer: rendererRatios,
    listing: listings,
    memory: {
      rss_mb_after_render_load: rssAfterFirst,
      rss_mb_after_second_run: rssAfterSecond,
      growth_mb: round(rssAfterSecond - rssAfterFirst, 1)
    },
    idle_memory: idle,
    first_start: firstStart,
    audited_writes: writes,
    audit_chain_ceiling: chainCeiling
  }
  writeFileSync(join(root, "bench/results/latest.json"), `${JSON.stringify(results, null, 2)}\n`)
  printReport(results)
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
