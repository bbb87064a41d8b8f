/**
 * `npm run bench`: gateway-control's hot paths measured side by side with their baselines, in one run.
 *
 * Servers are pinned to core 0 and this process (the load generator) to core 1 when `taskset` exists.
 * Prints a table and writes bench/results/latest.json. Durations: BENCH_DURATION (s, default 10),
 * BENCH_WARMUP (s, default 3). Benchmarks never fail: they measure.
 */
import { PGlite } from "@electric-sql/pglite"
import autocannon from "autocannon"
import Mustache from "mustache"
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import wontache from "wontache"
import { escapeHtml, Template } from "../packages/domain/src/prompts/Mustache.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const bin = join(root, "packages/server/bin/gateway-control.mjs")
const DURATION = Number(process.env.BENCH_DURATION ?? 10)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const CONNECTIONS = 50
const hasTaskset = spawnSync("taskset", ["-V"]).status === 0
if (hasTaskset) spawnSync("taskset", ["-cp", "1", String(process.pid)])

const log = (message: string) => process.stderr.write(`bench: ${message}\n`)
const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits

// -----------------------------------------------------------------------------------------------------------
// Processes and load

interface Server {
  readonly child: ChildProcess
  readonly url: string
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

let nextPort = 19_400
const startServer = async (
  script: string,
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  readyPath = "/healthz"
): Promise<Server> => {
  const port = nextPort++
  const command = hasTaskset ? "taskset" : process.execPath
  const commandArgs = hasTaskset ? ["-c", "0", process.execPath, script, ...args] : [script, ...args]
  const child = spawn(command, commandArgs, {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  let exited: number | null | undefined
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  child.once("exit", (code) => {
    exited = code
  })
  // Ready when it answers: the server's own logs may be turned down for the run.
  const deadline = Date.now() + 60_000
  while (true) {
    if (exited !== undefined) throw new Error(`${script} exited with ${exited}:\n${stderr}`)
    if (Date.now() > deadline) throw new Error(`${script} did not start:\n${stderr}`)
    const ready = await fetch(`http://127.0.0.1:${port}${readyPath}`).then((r) => r.ok, () => false)
    if (ready) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        child.once("exit", () => resolve())
        // taskset execs node, so the signal reaches the server itself.
        child.kill("SIGTERM")
      })
  }
}

interface LoadResult {
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly errors: number
}

const load = async (
  options: autocannon.Options,
  duration = DURATION,
  connections = CONNECTIONS
): Promise<LoadResult> => {
  await autocannon({ ...options, connections, duration: WARMUP })
  const result = await autocannon({ ...options, connections, duration })
  return {
    requestsPerSecond: round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx
  }
}

const rssMb = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  return round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024, 1)
}

const json = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, init)
  const body = await response.json()
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${JSON.stringify(body)}`)
  return body as Record<string, any>
}

// -----------------------------------------------------------------------------------------------------------
// Data directories

interface Prepared {
  /** The environment a server on this store needs. */
  readonly env: Record<string, string>
  readonly key: string
  readonly organisationId: string
  readonly workspaceId: string
  readonly cleanup: () => void
}

type BenchStore = "pglite" | "postgres"

const INSERT_INTEGRATIONS = (organisationId: string, count: number) =>
  `INSERT INTO mcp_integrations (id, organisation_id, name, slug, owner_id, status, url, description, workspace_id,
     configurations, auth_type, transport, global_workspace_access, workspace_ids, secret_mappings, created_at,
     last_updated_at)
   SELECT 'int-' || g, '${organisationId}', 'Integration ' || g, 'int-' || g, NULL, 'active',
     'https://mcp.example.com/' || g, NULL, NULL, '{"region":"eu"}'::jsonb, 'none', 'http', true, '[]'::jsonb,
     '[]'::jsonb, timestamptz '2026-01-01' + g * interval '1 millisecond', now()
   FROM generate_series(1, ${Math.trunc(count)}) AS g`

const psql = (url: string, statement: string) =>
  execFileSync("psql", [url, "-v", "ON_ERROR_STOP=1", "-qc", statement], {
    encoding: "utf8",
    env: { ...process.env, PGOPTIONS: "-c client_min_messages=warning" }
  })

/** A bootstrapped store with `integrations` MCP integrations in its organisation. */
const prepare = async (integrations: number, store: BenchStore): Promise<Prepared> => {
  let env: Record<string, string>
  let cleanup: () => void
  if (store === "pglite") {
    const dir = mkdtempSync(join(tmpdir(), "gwc-bench-"))
    env = { DATA_DIR: dir, GATEWAY_STORE: "pglite" }
    cleanup = () => rmSync(dir, { recursive: true, force: true })
  } else {
    // A database of its own next to DATABASE_URL's, dropped afterwards.
    const admin = process.env.DATABASE_URL!
    const name = `gateway_control_bench_${integrations}`
    psql(admin, `DROP DATABASE IF EXISTS ${name}`)
    psql(admin, `CREATE DATABASE ${name}`)
    const url = new URL(admin)
    url.pathname = `/${name}`
    // The processes of one database share a master key; a throwaway one keeps the working tree clean.
    env = {
      DATABASE_URL: url.toString(),
      GATEWAY_STORE: "postgres",
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64")
    }
    cleanup = () => psql(admin, `DROP DATABASE IF EXISTS ${name}`)
  }
  const output = execFileSync(process.execPath, [
    bin,
    "bootstrap",
    "--organisation-name",
    "Bench",
    "--owner-email",
    "bench@example.com"
  ], { env: { ...process.env, ...env, LOG_LEVEL: "warn" }, encoding: "utf8" })
  const boot = JSON.parse(output.trim())
  if (store === "pglite") {
    const db = await PGlite.create(join(env.DATA_DIR!, "pglite"))
    await db.query(INSERT_INTEGRATIONS(boot.organisation_id, integrations))
    await db.query("ANALYZE")
    await db.close()
  } else {
    psql(env.DATABASE_URL!, INSERT_INTEGRATIONS(boot.organisation_id, integrations))
    psql(env.DATABASE_URL!, "ANALYZE")
  }
  return { env, key: boot.api_key, organisationId: boot.organisation_id, workspaceId: boot.workspace_id, cleanup }
}

// -----------------------------------------------------------------------------------------------------------
// The renderer alone

const RENDER_CASES = {
  "chat message with partial": {
    template:
      "You are a support agent for {{company}}. {{>style}} Customer {{customer}} on plan {{plan}} asks: {{question}}",
    partials: { style: "Answer in {{language}} and keep it short." },
    view: {
      company: "Acme & Co",
      customer: "Ada",
      plan: "pro",
      question: "Why is <my> invoice \"late\"?",
      language: "English"
    }
  },
  "section over 20 items": {
    template: "{{#items}}- {{name}} ({{qty}} × {{price}}){{^last}}\n{{/last}}{{/items}}{{^items}}none{{/items}}",
    partials: {},
    view: {
      items: Array.from({ length: 20 }, (_, i) => ({ name: `item ${i}`, qty: i, price: `${i}.99`, last: i === 19 }))
    }
  },
  "dotted names and nesting": {
    template:
      "{{#user}}{{profile.name}} <{{profile.email}}> works at {{company.name}} in {{company.address.city}}{{/user}}",
    partials: {},
    view: {
      user: true,
      profile: { name: "Ada", email: "ada@example.com" },
      company: { name: "Acme", address: { city: "Ghent" } }
    }
  }
} as const

const opsPerSecond = (fn: () => unknown) => {
  const measure = (ms: number) => {
    let ops = 0
    const end = performance.now() + ms
    while (performance.now() < end) {
      for (let i = 0; i < 100; i++) fn()
      ops += 100
    }
    return (ops / ms) * 1000
  }
  measure(300)
  const runs = [measure(700), measure(700), measure(700)].sort((a, b) => a - b)
  return round(runs[1])
}

const benchRenderer = () => {
  const results: Record<string, { ours: number; mustache: number; wontache: number }> = {}
  for (const [name, c] of Object.entries(RENDER_CASES)) {
    const ours = Template.compile(c.template)
    const ourPartials = new Map(Object.entries(c.partials).map(([k, v]) => [k, Template.compile(v)]))
    const options = { escape: escapeHtml, partial: (n: string) => ourPartials.get(n) }
    Mustache.parse(c.template)
    const wontacheTemplate = wontache(c.template)
    const wontachePartials = Object.fromEntries(Object.entries(c.partials).map(([k, v]) => [k, wontache(v)]))
    const outputs = [
      ours.render(c.view, options),
      Mustache.render(c.template, c.view, c.partials),
      wontacheTemplate(c.view, { partials: wontachePartials })
    ]
    if (new Set(outputs).size !== 1) log(`renderer outputs differ for '${name}': ${JSON.stringify(outputs)}`)
    results[name] = {
      ours: opsPerSecond(() => ours.render(c.view, options)),
      mustache: opsPerSecond(() => Mustache.render(c.template, c.view, c.partials)),
      wontache: opsPerSecond(() => wontacheTemplate(c.view, { partials: wontachePartials }))
    }
    log(`renderer '${name}': ${JSON.stringify(results[name])}`)
  }
  return results
}

// -----------------------------------------------------------------------------------------------------------
// Run

const renderRequest = {
  variables: { company: "Acme", customer: "Ada", plan: "pro", question: "Where is my order?", language: "English" },
  temperature: 0.3
}

const main = async () => {
  const started = new Date()
  log("renderer alone")
  const renderer = benchRenderer()

  log("preparing a PGlite store (initdb)")
  const small = await prepare(1_000, "pglite")

  const ours = await startServer(bin, ["serve"], small.env)
  const auth = { "x-service-api-key": small.key, "content-type": "application/json" }
  await json(`${ours.url}/v1/prompts/partials`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      workspace_id: small.workspaceId,
      name: "style",
      string: "Answer in {{language}} and keep it short."
    })
  })
  await json(`${ours.url}/v1/prompts`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({
      workspace_id: small.workspaceId,
      name: "support",
      string: JSON.stringify([
        { role: "system", content: "You are a support agent for {{company}}. {{>style}}" },
        { role: "user", content: "Customer {{customer}} on plan {{plan}} asks: {{question}}" }
      ]),
      parameters: { model: "gpt-4o", temperature: 0.2, max_completion_tokens: 256 }
    })
  })
  const renderOptions = (base: string, key?: string): autocannon.Options => ({
    url: `${base}/v1/prompts/support/render`,
    method: "POST",
    headers: { "content-type": "application/json", ...(key === undefined ? {} : { "x-service-api-key": key }) },
    body: JSON.stringify(renderRequest)
  })

  log("render: gateway-control")
  const renderOurs = await load(renderOptions(ours.url, small.key))
  const rssAfterFirst = rssMb(ours.child.pid!)
  log("render: gateway-control, second identical run (memory growth)")
  await load(renderOptions(ours.url, small.key))
  const rssAfterSecond = rssMb(ours.child.pid!)

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

  const listing = async (server: Server, prepared: Prepared, rows: number) => {
    const base = `${server.url}/v1/mcp-integrations?organisation_id=${prepared.organisationId}&page_size=100`
    const headers = { "x-service-api-key": prepared.key }
    const first = await load({ url: `${base}&current_page=0`, headers }, Math.min(DURATION, 5), 4)
    const deep = await load(
      { url: `${base}&current_page=${Math.floor(rows / 100) - 1}`, headers },
      Math.min(DURATION, 5),
      4
    )
    return { rows, first, deep }
  }
  /** First and deep pages at 1,000 and 100,000 integrations on one store; the small leg may reuse a server. */
  const listingLeg = async (store: BenchStore, reuse?: { readonly prepared: Prepared; readonly server: Server }) => {
    const legs = []
    for (const rows of [1_000, 100_000]) {
      const prepared = rows === 1_000 && reuse !== undefined ? reuse.prepared : await prepare(rows, store)
      const server = rows === 1_000 && reuse !== undefined
        ? reuse.server
        : await startServer(bin, ["serve"], prepared.env)
      log(`listing on ${store}: ${rows.toLocaleString("en")} integrations`)
      legs.push(await listing(server, prepared, rows))
      await server.stop()
      prepared.cleanup()
    }
    const [smallLeg, largeLeg] = legs as [typeof legs[number], typeof legs[number]]
    return {
      store,
      small: smallLeg,
      large: largeLeg,
      first_page_large_over_small: round(largeLeg.first.p50 / Math.max(smallLeg.first.p50, 0.01), 2),
      deep_page_large_over_small: round(largeLeg.deep.p50 / Math.max(smallLeg.deep.p50, 0.01), 2)
    }
  }
  const listings = [await listingLeg("pglite", { prepared: small, server: ours })]
  if (process.env.DATABASE_URL !== undefined) listings.push(await listingLeg("postgres"))
  else log("listing on PostgreSQL skipped: DATABASE_URL is not set")

  const bare = await startServer(join(root, "bench/baselines/bare.mjs"), [], {}, "/ping")
  log("render: bare node:http")
  const renderBare = await load(renderOptions(bare.url))
  log("trivial GET: bare node:http")
  const readBare = await load({ url: `${bare.url}/ping` })
  await bare.stop()

  const hono = await startServer(join(root, "bench/baselines/hono.mjs"), [], {}, "/ping")
  log("render: Hono")
  const renderHono = await load(renderOptions(hono.url))
  await hono.stop()

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
    }
  }
  writeFileSync(join(root, "bench/results/latest.json"), `${JSON.stringify(results, null, 2)}\n`)

  const row = (name: string, r: LoadResult) =>
    `| ${name} | ${r.requestsPerSecond} | ${r.p50} | ${r.p99} | ${r.errors} |`
  console.log(
    [
      `gateway-control benchmarks, ${results.date}, ${results.machine.cpus} × ${results.machine.cpu}, Node ${results.machine.node}`,
      "",
      "| HTTP (50 connections) | req/s | p50 ms | p99 ms | errors |",
      "|---|---|---|---|---|",
      row("render: gateway-control (PGlite), key without limits", renderOurs),
      row("render: gateway-control (PGlite), key with 2 limits (in-memory counters)", renderLimited),
      row("render: bare node:http", renderBare),
      row("render: Hono", renderHono),
      row("authenticated read: GET /v1/mcp-servers/{id}", readOurs),
      row("trivial GET: bare node:http", readBare),
      "",
      `render ours/bare ${results.render.ours_over_bare}, ours/Hono ${results.render.ours_over_hono}; read ours/bare ${results.authenticated_read.ours_over_bare}; render with limits/without ${results.render.limited_over_unlimited}`,
      "",
      "| renderer (renders/s) | ours | mustache | wontache | ours/wontache | ours/mustache |",
      "|---|---|---|---|---|---|",
      ...Object.entries(rendererRatios).map(([name, r]) =>
        `| ${name} | ${r.ours} | ${r.mustache} | ${r.wontache} | ${r.ours_over_wontache} | ${r.ours_over_mustache} |`
      ),
      "",
      "| listing (4 connections) | p50 ms first page | p50 ms deep page |",
      "|---|---|---|",
      ...listings.flatMap((leg) => [
        `| ${leg.store}, 1,000 integrations | ${leg.small.first.p50} | ${leg.small.deep.p50} |`,
        `| ${leg.store}, 100,000 integrations | ${leg.large.first.p50} | ${leg.large.deep.p50} |`,
        `| ${leg.store}, 100,000 / 1,000 | ${leg.first_page_large_over_small} | ${leg.deep_page_large_over_small} |`
      ]),
      "",
      `memory: RSS ${rssAfterFirst} MB after the render load, ${rssAfterSecond} MB after a second run (growth ${results.memory.growth_mb} MB)`
    ].join("\n")
  )
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
