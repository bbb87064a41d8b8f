/**
 * Issue #31 point 6, under load: render p99 at 1,000 req/s with every background job of the server at work, and
 * resident memory after the render load on PGlite and on the memory store.
 *
 * The jobs, on PGlite: the MCP health checker over 1,000 unreachable integrations (every 10 s rather than every
 * minute, so a round falls in every run), the credential-health checker (on, at its default), the last-used-at
 * flush (the load spreads over `KEYS` keys, each used for the first time in the run, so each is written), and the
 * rotation sweep (each of those keys was rotated with a transition that ends during the runs, so sweeps end them,
 * audit and publish). Every figure is beside bare `node:http` doing the same render in the same run. The server
 * runs as an installation runs it (the built, bundled CLI), with the Node options the README asks for, as an
 * operator's would; bare `node:http` gets the same options.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  createRenderPrompt,
  installed,
  INSTALLED_ENV,
  json,
  load,
  log,
  median,
  paced,
  type Prepared,
  renderOptions,
  renderRequests,
  residentMb,
  root,
  round,
  type Server,
  SERVER_NODE_ARGS,
  sleep,
  startServer
} from "../support.ts"

/** Keys the fixed-rate load spreads over: each one's first use is a last-used-at write, each rotation an end. */
const KEYS = 100
const ROUNDS = 2

/** `KEYS` render keys, each rotated with a transition ending `firstEndMs` to `lastEndMs` from now; their new secrets. */
const rotatedKeys = async (server: Server, prepared: Prepared, firstEndMs: number, lastEndMs: number) => {
  const auth = { "x-service-api-key": prepared.key, "content-type": "application/json" }
  const secrets: Array<string> = []
  for (let i = 0; i < KEYS; i++) {
    const created = await json(`${server.url}/v1/api-keys/workspace/service`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: `bench load ${i}`, workspace_id: prepared.workspaceId, scopes: ["prompts.render"] })
    })
    const period = Math.round(firstEndMs + ((lastEndMs - firstEndMs) * i) / KEYS)
    const rotated = await json(`${server.url}/v1/api-keys/${created.id}/rotate`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ transition_period_ms: period })
    })
    secrets.push(String(rotated.key))
  }
  return secrets
}

/** p99 at 1,000 renders/s over 10 connections, steadily paced, the requests spread over `keys` in turn (none: bare's). */
const atFixedRate = (server: Server, keys: ReadonlyArray<string | undefined>, duration: number) =>
  paced(server.url, renderRequests(keys), { rate: 1_000, durationS: duration, connections: 10 })

/**
 * The figures of point 6 on PGlite, with the jobs at work; `prepared` holds 1,000 MCP integrations. Both servers
 * run with the options the README asks a server to run with (`SERVER_NODE_ARGS`).
 */
export const benchPgliteUnderLoad = async (prepared: Prepared) => {
  const nodeArgs = SERVER_NODE_ARGS
  const bare = await startServer(join(root, "bench/baselines/bare.mjs"), [], {}, "/ping", { nodeArgs })
  const server = await startServer(
    installed,
    ["serve"],
    {
      ...prepared.env,
      ...INSTALLED_ENV,
      MCP_HEALTH_INTERVAL_MS: "10000"
    },
    "/healthz",
    { nodeArgs }
  )
  await createRenderPrompt(server, prepared).catch(() => undefined) // made already by an earlier leg
  // A new process has run no render yet. First the render load the leg without the jobs serves before its rounds
  // (the throughput leg, twice), with the admin key, so the rounds measure the jobs and not V8 optimising the
  // render path. With 3 s of it, `--trace-opt` showed TurboFan compiling 144 functions of that path during the
  // first round (882 ms of the one worker thread, on the server's core), 42 during the second. The 100 keys stay
  // unused until the first round, whose first uses are part of the jobs' work.
  for (let i = 0; i < 2; i++) await load(renderOptions(server.url, prepared.key))
  const duration = Math.max(5, Number(process.env.BENCH_DURATION ?? 10))
  // Transitions end from the first round's start to past the last round's end.
  const keys = await rotatedKeys(server, prepared, 2_000, 2_000 + ROUNDS * 2.5 * duration * 1_000)
  const rounds = []
  for (let i = 0; i < ROUNDS; i++) {
    log(`under load: render p99 at 1,000 req/s with the background jobs running, round ${i + 1} of ${ROUNDS}`)
    const bareRun = await atFixedRate(bare, [undefined], duration)
    const oursRun = await atFixedRate(server, keys, duration)
    rounds.push({
      gateway_control: oursRun,
      bare_node_http: bareRun,
      added_p99_ms: round(oursRun.p99 - bareRun.p99, 1)
    })
  }
  // Let the last transitions end before counting what the sweeps did.
  await sleep(2_000)
  const swept = await json(
    `${server.url}/v1/audit-logs?action=transition_end&page_size=1`,
    { headers: { "x-service-api-key": prepared.key } }
  ).then((page) => Number(page.total), () => -1)
  log("under load: render at 50 connections, then the resident memory (PGlite)")
  const render = await load(renderOptions(server.url, prepared.key))
  const resident = residentMb(server.child.pid!)
  await server.stop()
  await bare.stop()
  return {
    node_args: nodeArgs,
    keys: KEYS,
    transitions_ended: swept,
    latency: { rate: 1_000, connections: 10, rounds, added_p99_ms: median(rounds.map((r) => r.added_p99_ms)) },
    render,
    rss_after_render: resident
  }
}

/** The memory store, as `npm start` runs it: RSS after the same render load as PGlite's. */
export const benchMemoryStoreUnderLoad = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gwc-bench-memory-"))
  const server = await startServer(
    installed,
    ["serve"],
    { GATEWAY_STORE: "memory", DATA_DIR: dataDir, ...INSTALLED_ENV },
    "/healthz"
  )
  // The first start prints the admin key and the default workspace (an in-memory store has no other way in).
  const key = /x-service-api-key: (\S+)/.exec(server.stderr())?.[1]
  const workspaceId = /workspace '[^']*' \(([0-9a-f-]+)\)/.exec(server.stderr())?.[1]
  if (key === undefined || workspaceId === undefined) throw new Error("bench: the memory store printed no admin key")
  await createRenderPrompt(server, { env: {}, key, workspaceId, organisationId: "", cleanup: () => undefined })
  log("under load: render at 50 connections, then the resident memory (memory store)")
  const render = await load(renderOptions(server.url, key))
  const resident = residentMb(server.child.pid!)
  await server.stop()
  rmSync(dataDir, { recursive: true, force: true })
  return { render, rss_after_render: resident }
}
