/**
 * Every command line of the README, run as a new user would: in a fresh clone of the committed HEAD (so no
 * build, no `dist/`, nothing the checkout has that a clone lacks), after `npm install`, from a shell whose PATH
 * is the machine's (the Node that npm installs is found the way the README says, not because the test put it
 * first). A line fails on a non-zero exit or a stack trace on stderr. Servers (`npm start`, `… serve`) start in
 * the background, answer a request with the admin key, and stop on SIGTERM to the node process itself with exit 0.
 *
 * The lines are read from the README (support/ReadmeCommands.ts), so a new one is covered without an edit here;
 * the few that cannot or should not run here are listed in SKIPPED, each with its reason.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FreshDatabase, freshDatabase, postgresUrl } from "./support/Databases.ts"
import { isAssignment, type ReadmeCommand, readmeCommands } from "./support/ReadmeCommands.ts"
import { freePort } from "./support/ServerProcess.ts"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const commands = readmeCommands(readFileSync(join(root, "README.md"), "utf8"))

/** Lines not run here, each with why. Every entry must still be a README line (checked below). */
const SKIPPED: Record<string, string> = {
  "npm test": "it is the run this test is part of (recursive)",
  "bash .ci/run": "it runs `npm test` (recursive)",
  "npm run bench": "minutes of load that measure the machine, not the README",
  "npm run bench:render": "minutes of load that measure the machine, not the README",
  "npm run bench:load": "minutes of load that measure the machine, not the README",
  "npm run examples": "CI runs it right after `npm test` (.ci/run); it builds and packs every package (minutes)",
  "npm run screenshots":
    "runs ConsoleBrowser.test.ts and ConsoleJobs.test.ts, which `npm test` runs, and rewrites docs/'s screenshots",
  "npm run build": "`npm run examples` runs it in CI; the clone must work without it, which is what is tested here",
  "npm run typecheck": "CI runs this very command on this very tree (.ci/run)",
  "npm run lint": "CI runs this very command on this very tree (.ci/run)",
  "FUZZ_SEED=123 FUZZ_RUNS=1000 npx vitest run packages/server/test/Fuzz.test.ts":
    "a long fuzzing run (minutes); Fuzz.test.ts itself runs in `npm test`",
  "npm pack": "names the tool the tarballs come from; `npm run examples` packs each package",
  "curl -s \"$GATEWAY/v1/oauth/token\" \\\n  -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange \\\n  -d subject_token_type=urn:ietf:params:oauth:token-type:jwt \\\n  --data-urlencode \"subject_token@/var/run/secrets/tokens/gateway-control\"":
    "runs inside a Kubernetes pod, on its projected token; TokenExchange.test.ts makes the same exchange with a local issuer's token",
  "ID_TOKEN=$(curl -s -H \"Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN\" \"$ACTIONS_ID_TOKEN_REQUEST_URL&audience=gateway-control\" | jq -r .value)":
    "runs inside a GitHub Actions job, which alone can ask for its OIDC token",
  "KEY=$(curl -s \"$GATEWAY/v1/oauth/token\" -d grant_type=urn:ietf:params:oauth:grant-type:token-exchange -d subject_token_type=urn:ietf:params:oauth:token-type:jwt --data-urlencode \"subject_token=$ID_TOKEN\" | jq -r .access_token)":
    "exchanges the GitHub job's token (above); TokenExchange.test.ts makes the same exchange with a local issuer's token",
  "curl -s \"$GATEWAY/v1/prompts/support-bot@production/render\" -H \"Authorization: Bearer $KEY\" -H 'content-type: application/json' -d '{\"variables\": {\"question\": \"Where is my order?\"}}'":
    "uses the credential the GitHub job got (above); TokenExchange.test.ts uses such a credential in this header"
}
/** Lines that need a PostgreSQL server: run on a fresh database when TEST_DATABASE_URL is set. */
const needsPostgres = (text: string) => text.includes("postgres://…")

// Environment variables of the `npm test` around this test that would steer the npm and vitest runs inside the clone.
const inherited = Object.fromEntries(
  Object.entries(process.env).filter(([name]) =>
    !/^(npm_|NODE_OPTIONS$|NODE_PATH$|INIT_CWD$|VITEST|TEST_|DATABASE_URL$|DATA_DIR$|PORT$|HOST$|GATEWAY_|REDIS_URL$|REQUIRE_)/
      .test(name)
  )
)
/** The machine's PATH: without the `node_modules/.bin` folders npm put in front of it for this test run. */
const userPath = (process.env.PATH ?? "").split(delimiter).filter((dir) =>
  !/node_modules[\\/]\.bin$|node-gyp-bin$/.test(dir)
).join(delimiter)

let work: string
let clone: string
let port: number
let database: FreshDatabase | undefined
/** The admin key of the PGlite store the lines share, printed at its first start. */
let storeKey: string | undefined

interface Run {
  readonly child: ChildProcess
  readonly exited: Promise<number | null>
  readonly stdout: () => string
  readonly stderr: () => string
}

interface Server extends Run {
  readonly key: string
}
let server: Server | undefined

const run = (script: string, env: Record<string, string>): Run => {
  // Its own process group, so that a line that hangs is stopped whole.
  const child = spawn("bash", ["-c", script], { cwd: clone, env: { ...inherited, ...env }, detached: true })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

const killGroup = (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, "SIGKILL")
  } catch {
    // already gone
  }
}

const STACK_TRACE = /^\s+at \S/m

const expectClean = (what: string, code: number | null, stderr: string) => {
  expect(STACK_TRACE.test(stderr), `${what}: a stack trace on stderr:\n${stderr}`).toBe(false)
  expect(code, `${what}: exit ${code}; stderr:\n${stderr}`).toBe(0)
}

/** Waits for a line with a timeout; a line still running then is stopped and fails. */
const finish = async (line: Run, what: string, timeoutMs = 180_000) => {
  const timer = setTimeout(() => killGroup(line.child), timeoutMs)
  const code = await line.exited
  clearTimeout(timer)
  expectClean(what, code, line.stderr())
  return line
}

/** The processes below `pid` (Linux `/proc`): `npm start`'s node runs under npm and a shell. */
const descendants = (pid: number): Array<number> => {
  const parents = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)])
    } catch {
      // exited meanwhile
    }
  }
  const below = (p: number): Array<number> => (parents.get(p) ?? []).flatMap((c) => [c, ...below(c)])
  return below(pid)
}

const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
  } catch {
    return []
  }
}

/** The node process that serves: a signal to npm or to the shell does not reach it. */
const serverProcess = (shell: number) => {
  const candidates = [shell, ...descendants(shell)].filter((pid) => {
    const args = cmdline(pid)
    return /(^|\/)node$/.test(args[0] ?? "") && args.some((arg) => arg.includes("gateway-control"))
  })
  return candidates.at(-1)
}

const stopServer = async () => {
  if (server === undefined) return
  const running = server
  server = undefined
  const pid = serverProcess(running.child.pid!)
  expect(pid, `no node process serving under:\n${running.stderr()}`).toBeDefined()
  process.kill(pid!, "SIGTERM")
  await finish(running, "the server, stopped with SIGTERM", 60_000)
}

const startServer = async (script: string, env: Record<string, string>, what: string) => {
  await stopServer()
  const started = run(script, env)
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(started.child)
      reject(new Error(`${what}: not listening after 120 s:\n${started.stderr()}`))
    }, 120_000)
    started.child.stderr!.on("data", () => {
      if (started.stderr().includes("Listening on")) {
        clearTimeout(timer)
        resolve()
      }
    })
    void started.exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`${what}: exited ${code} before listening:\n${started.stderr()}`))
    })
  })
  const printed = /x-service-api-key: (gwc_[\w-]+)/.exec(started.stderr())?.[1]
  const key = printed ?? storeKey
  expect(key, `${what}: no admin key printed, and none known for its store`).toBeDefined()
  const answer = await fetch(`http://127.0.0.1:${port}/v1/workspaces`, { headers: { "x-service-api-key": key! } })
  expect(answer.status, `${what}: GET /v1/workspaces with the admin key`).toBe(200)
  server = { ...started, key: key! }
  return printed
}

const isServer = (text: string) => /\bnpm start\b|gateway-control(\.mjs)? serve\b/.test(text)
/** Commands that open the store themselves: PGlite is one process's, so the server stops first. */
const opensStore = (text: string) => /gateway-control(\.mjs)? (?!serve\b|--help\b|--version\b)\w/.test(text)
const needsServer = (text: string) => /\bcurl\b|\$GATEWAY/.test(text)

/** The line with the README's placeholders filled in; inline ones (table, prose) also have `[optional]` parts. */
const fill = (command: ReadmeCommand, values: { key?: string; checkpoint?: string; databaseUrl?: string }) => {
  let text = command.text.replaceAll("127.0.0.1:8787", `127.0.0.1:${port}`)
  if (text.includes("gwc_…")) {
    expect(values.key, `${command.text}: no admin key yet`).toBeDefined()
    text = text.replaceAll("gwc_…", values.key!)
  }
  if (values.databaseUrl !== undefined) text = text.replaceAll("postgres://…", values.databaseUrl)
  if (command.block === undefined) {
    text = text.replace(/\[([^\]]*)\]/g, "$1")
      .replace(/<name>/g, "Acme")
      .replace(/<email>/g, "owner@example.com")
      .replace(/ N\b/g, " 10")
    if (/\bFILE\b/.test(text)) text = text.replace(/\bFILE\b/g, values.checkpoint!)
    expect(text, `${command.text}: a placeholder this test does not know`).not.toMatch(/<\w+>|…/)
  }
  return text
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "gwc-readme-"))
  clone = join(work, "gateway-control")
  port = await freePort()
  // The committed HEAD: what a user (and CI) clones. Uncommitted changes are not in it.
  execFileSync("git", ["clone", "--quiet", root, clone], { stdio: "pipe" })
  // On the Node 24 of this run (npm is found on the PATH npm gave this test), as `npm install` would in a clone.
  execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: clone,
    env: { ...inherited, PATH: process.env.PATH },
    stdio: "pipe",
    timeout: 600_000
  })
  mkdirSync(join(work, "stores"))
}, 660_000)

afterAll(async () => {
  if (server !== undefined) killGroup(server.child)
  await database?.drop()
  if (work !== undefined) rmSync(work, { recursive: true, force: true })
}, 300_000)

describe("the README's command lines, in a fresh clone", () => {
  it("are found in the README: its code blocks, its Commands table and its prose", () => {
    const texts = commands.map((command) => command.text)
    expect(texts).toEqual(expect.arrayContaining([
      "npm install",
      "npm start",
      "npx gateway-control --help",
      "npx gateway-control migrate",
      "npx gateway-control audit verify --checkpoint audit-checkpoint.json"
    ]))
    expect(texts.filter((text) => text.includes("gateway-control.mjs serve"))).toHaveLength(1)
    // A skip that names no README line any more is stale.
    for (const skipped of Object.keys(SKIPPED)) expect(texts, `SKIPPED names '${skipped}'`).toContain(skipped)
  })

  it.for(commands.map((command) => [`README line ${command.line}: ${command.text}`, command] as const))(
    "%s",
    { timeout: 240_000 },
    async ([what, command], { skip }) => {
      if (command.text in SKIPPED) skip(SKIPPED[command.text])
      if (needsPostgres(command.text) && postgresUrl === undefined) skip("needs a PostgreSQL: set TEST_DATABASE_URL")
      const env: Record<string, string> = {
        PATH: userPath,
        DATA_DIR: join(work, "stores", "pglite"),
        PORT: String(port),
        HOST: "127.0.0.1",
        // As in a user's shell, plus what keeps npm off the network and quiet.
        npm_config_prefer_offline: "true",
        npm_config_audit: "false",
        npm_config_fund: "false",
        npm_config_update_notifier: "false"
      }
      const values: { key?: string; checkpoint?: string; databaseUrl?: string } = {}
      if (needsPostgres(command.text)) {
        database = database ?? (await freshDatabase(postgresUrl!))
        values.databaseUrl = database.url
      }
      if (opensStore(command.text) || isServer(command.text)) await stopServer()
      if (/\bbootstrap\b/.test(command.text)) {
        // It needs an empty store (on one that has an organisation it exits 1, as the README says).
        env.DATA_DIR = join(work, "stores", `bootstrap-${command.line}`)
      }
      if (/\bFILE\b/.test(command.text) && command.block === undefined) {
        values.checkpoint = join(work, "checkpoint.json")
        await finish(run(`npx gateway-control audit checkpoint > '${values.checkpoint}'`, env), "audit checkpoint")
      }
      if (needsServer(command.text) && server === undefined) {
        await startServer("npm start", env, "npm start, for the lines that call a server")
      }
      if (server !== undefined) {
        env.GATEWAY = `http://127.0.0.1:${port}`
        env.KEY = server.key
      }
      values.key = server?.key ?? storeKey
      const text = fill(command, values)

      if (isServer(command.text)) {
        const printed = await startServer(text, env, what)
        // The first start of the shared store prints its key; a PostgreSQL store's key is its own.
        if (printed !== undefined && !needsPostgres(command.text)) storeKey = storeKey ?? printed
        return
      }
      // Lines of a block run after the block's assignments before them (`KEY=…`, `WS=$(…)`).
      const assignments = command.block === undefined
        ? []
        : commands.filter((c) => c.block === command.block && c.line < command.line && isAssignment(c.text))
          .map((c) => fill(c, values))
      await finish(run([...assignments, text].join("\n"), env), what)
    }
  )

  it("leaves no server running", async () => {
    await stopServer()
  }, 60_000)
})
