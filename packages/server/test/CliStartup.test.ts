/**
 * How the CLI starts, and how it refuses to: from the checkout with no build and no flag, and with one line (no
 * stack trace) when what stops it is the user's to fix: a port in use, a store another process holds, a Node too old.
 */
import { execFile, execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { cleanupsAfterAll, tempDirWith } from "./support/Cleanups.ts"
import { cli, freePort, startServerProcess } from "./support/ServerProcess.ts"

const exec = promisify(execFile)
const cleanups = cleanupsAfterAll()
const tempDir = tempDirWith(cleanups, "gwc-cli-")

/** Runs the CLI with `node` and no flags; resolves to its exit code and output, whatever the code. */
const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}, node = process.execPath) =>
  exec(node, [...cli, ...args], { env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error
  )

const listening = (port: number) =>
  new Promise<Server>((resolve) => {
    const holder = createServer()
    holder.listen(port, "127.0.0.1", () => resolve(holder))
  })

/** A Node on the PATH older than 22.19 (the system's, on this machine kind), if there is one. */
const oldNode = (() => {
  try {
    const path = execFileSync("bash", ["-c", "type -ap node | grep -v node_modules | head -1"], {
      encoding: "utf8"
    }).trim()
    const [major, minor] = execFileSync(path, ["-p", "process.versions.node"], { encoding: "utf8" }).split(".")
      .map(Number)
    return major < 22 || (major === 22 && minor < 19) ? path : undefined
  } catch {
    return undefined
  }
})()

describe("the gateway-control CLI", () => {
  it("runs from the checkout with plain `node bin/gateway-control.mjs`: no build, no --conditions", async () => {
    const help = await runCli(["--help"])
    expect(help.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|^\s+at /m)
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("SUBCOMMANDS")
    const migrated = await runCli(["migrate"], { GATEWAY_STORE: "pglite", DATA_DIR: tempDir() })
    expect(migrated.code).toBe(0)
    expect(JSON.parse(migrated.stdout)).toMatchObject({ store: "pglite" })
  }, 120_000)

  it("says a port in use in one line, exits 1, and leaves the store unopened", async () => {
    const port = await freePort()
    const holder = await listening(port)
    cleanups.push(() => holder.close())
    const dataDir = join(tempDir(), "data")
    const refused = await runCli(["serve"], { GATEWAY_STORE: "pglite", DATA_DIR: dataDir, PORT: String(port) })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(
      `gateway-control: port ${port} on 127.0.0.1 is already in use; stop the other process, or set PORT to ` +
        `another port.\n`
    )
    // Probed before the store opens: a first start did not create, migrate and bootstrap a store first.
    expect(existsSync(dataDir)).toBe(false)
  }, 60_000)

  it("says which process holds the store, and how to proceed", async () => {
    const dataDir = tempDir()
    const server = await startServerProcess({ GATEWAY_STORE: "pglite", DATA_DIR: dataDir })
    cleanups.push(() => server.child.kill("SIGKILL"))
    const refused = await runCli(["audit", "verify"], { GATEWAY_STORE: "pglite", DATA_DIR: dataDir })
    expect(refused.code).toBe(1)
    const lines = refused.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`The data directory ${dataDir} is in use by process ${server.child.pid}`)
    expect(lines[0]).toContain("a running gateway-control server")
    expect(lines[0]).toContain(`kill ${server.child.pid}`)
    expect(lines[0]).toContain("set DATA_DIR to another directory")
    expect(lines[0]).toContain("PostgreSQL (DATABASE_URL)")
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
    const verified = await runCli(["audit", "verify"], { GATEWAY_STORE: "pglite", DATA_DIR: dataDir })
    expect(verified.code).toBe(0)
  }, 120_000)

  it.skipIf(oldNode === undefined)("explains itself on a Node older than 22.19", async () => {
    const refused = await runCli(["--help"], {}, oldNode)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^gateway-control needs Node ≥ 22\.19; .*\(this is Node \d+\.\d+\.\d+\)\.\n$/)
  })

  it("prints, at the first start, the owner's single-use link to set their password, valid for an hour", async () => {
    const server = await startServerProcess({ GATEWAY_STORE: "memory" })
    cleanups.push(() => server.child.kill("SIGKILL"))
    const line = server.stderr().split("\n").find((l) => l.includes("set your password:"))
    const url = new URL(/set your password: (\S+)/.exec(line ?? "")![1]!)
    expect(`${url.origin}${url.pathname}`).toBe(`${server.baseUrl}/console/invite`)
    const token = url.hash.slice(1)
    const preview = await fetch(`${server.baseUrl}/v1/auth/invite?token=${token}`)
    expect(preview.status).toBe(200)
    const shown = (await preview.json()) as { expires_at: string }
    expect(shown).toMatchObject({ email: "owner@localhost", role: "owner", workspaces: [] })
    expect(Date.parse(shown.expires_at) - Date.now()).toBeLessThanOrEqual(3_600_000)
    expect(Date.parse(shown.expires_at) - Date.now()).toBeGreaterThan(3_000_000)
    const accept = (password: string) =>
      fetch(`${server.baseUrl}/v1/auth/invite`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, password })
      })
    const accepted = await accept("the owner's first password")
    expect(accepted.status).toBe(200)
    const cookie = accepted.headers.get("set-cookie")!.split(";")[0]!
    const me = await (await fetch(`${server.baseUrl}/v1/me`, { headers: { cookie } })).json()
    expect(me).toMatchObject({ type: "user", user: { email: "owner@localhost", role: "owner" } })
    // Single use: the link is spent.
    expect((await accept("another password entirely")).status).toBe(404)
    const signIn = await fetch(`${server.baseUrl}/v1/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@localhost", password: "the owner's first password" })
    })
    expect(signIn.status).toBe(200)
  }, 120_000)
})
