/**
 * A store remembers the check value of the master key it was made with (written at the first start that finds
 * none, as for a store made before the check), and a process started with another key stops with one line and
 * exit 1 before it writes anything; the store's own key still opens it.
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { cli, freePort } from "./support/ServerProcess.ts"

const exec = promisify(execFile)
const dataDir = mkdtempSync(join(tmpdir(), "gwc-master-key-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  exec(process.execPath, [...cli, ...args], {
    env: { ...process.env, GATEWAY_STORE: "pglite", DATA_DIR: dataDir, ...env }
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error
  )

const storeKey = randomBytes(32).toString("base64")
const otherKey = randomBytes(32).toString("base64")

describe("the master key check", () => {
  it("a store keeps its key's check value; another key stops every command with one line, exit 1", async () => {
    const made = await runCli(["bootstrap", "--organisation-name", "Acme", "--owner-email", "a@acme.test"], {
      GATEWAY_MASTER_KEY: storeKey
    })
    expect(made.code).toBe(0)

    const refused = await runCli(["audit", "verify"], { GATEWAY_MASTER_KEY: otherKey })
    expect(refused.code).toBe(1)
    expect(refused.stderr.trim()).toMatch(
      /^gateway-control: GATEWAY_MASTER_KEY is not the key this store was made with/
    )
    expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    expect(refused.stderr).not.toContain(otherKey)

    const served = await runCli(["serve"], { GATEWAY_MASTER_KEY: otherKey, PORT: String(await freePort()) })
    expect(served.code).toBe(1)
    expect(served.stderr).toMatch(/GATEWAY_MASTER_KEY is not the key this store was made with/)
    expect(served.stderr).not.toMatch(/^\s+at /m)

    const verified = await runCli(["audit", "verify"], { GATEWAY_MASTER_KEY: storeKey })
    expect(verified.code).toBe(0)
    expect(verified.stdout).toMatch(/^ok: /)
  }, 120_000)
})
