/**
 * The operator's audit commands, as processes: `audit checkpoint` pins the chain's head, and
 * `audit verify --checkpoint` finds a chain cut short since; `audit unauthenticated` shows calls made with
 * no known key.
 */
import { PGlite } from "@electric-sql/pglite"
import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { cleanupsAfterAll, tempDirWith } from "./support/Cleanups.ts"
import { freshDatabase, postgresUrl, query } from "./support/Databases.ts"
import { runCli as cli, startServerProcess } from "./support/ServerProcess.ts"

const cleanups = cleanupsAfterAll()
const tempDir = tempDirWith(cleanups, "gwc-audit-")

/** Serves on the store, makes `creates` audited creates and one call with an unknown key, then stops. */
const writeRecords = async (env: Record<string, string>, creates: number) => {
  const server = await startServerProcess(env)
  cleanups.push(() => void server.child.kill("SIGKILL"))
  const call = (body: unknown, key: string) =>
    fetch(`${server.baseUrl}/v1/workspaces`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-api-key": key, "x-request-id": "cli-test-401" },
      body: JSON.stringify(body)
    }).then((r) => r.status)
  for (let i = 0; i < creates; i++) expect(await call({ name: `Audited ${i}` }, server.adminKey!)).toBe(201)
  expect(await call({ name: "intruder" }, `gwc_${"z".repeat(43)}`)).toBe(401)
  server.child.kill("SIGTERM")
  expect(await server.exited).toBe(0)
}

/** Checkpoints the chain, cuts its newest record with `deleteNewest`, and checks what verify makes of it. */
const checkpointThenCut = async (env: Record<string, string>, deleteNewest: () => Promise<void>) => {
  const dir = tempDir()
  const taken = await cli(["audit", "checkpoint"], env)
  expect(taken.code).toBe(0)
  const checkpoint = JSON.parse(taken.stdout)
  // The bootstrap and the owner's set-your-password link at the server's first start, three creates and one refusal.
  expect(checkpoint).toMatchObject({
    count: 6,
    heads: [{ chain: 0, count: 6, last_hash: expect.stringMatching(/^[0-9a-f]{64}$/) }]
  })
  const file = join(dir, "checkpoint.json")
  writeFileSync(file, taken.stdout)

  const reached = await cli(["audit", "verify", "--checkpoint", file], env)
  expect(reached).toMatchObject({ code: 0 })
  expect(reached.stdout).toMatch(
    /^ok: 6 audit records in 1 chain, all intact; it reaches the checkpoint of .* \(6 audit records\)/
  )

  const unauthenticated = await cli(["audit", "unauthenticated"], env)
  expect(unauthenticated.stdout.trim().split("\n").map((line) => JSON.parse(line))).toEqual([
    expect.objectContaining({ request_id: "cli-test-401", organisation_id: null, response_status_code: 401 })
  ])

  await deleteNewest()
  // Without the checkpoint, a shorter chain is a valid chain.
  expect((await cli(["audit", "verify"], env)).stdout).toMatch(/^ok: 5 audit records in 1 chain, all intact/)
  const cut = await cli(["audit", "verify", "--checkpoint", file], env)
  expect(cut.code).toBe(1)
  expect(cut.stdout).toContain("broken: chain 0 ends at record 5, but the checkpoint")
  expect(cut.stdout).toContain("records were removed")

  const forgedFile = join(dir, "forged.json")
  writeFileSync(forgedFile, JSON.stringify({ ...checkpoint, count: 4 }))
  const forged = await cli(["audit", "verify", "--checkpoint", forgedFile], env)
  expect(forged.code).toBe(1)
  expect(forged.stdout).toContain("signature is not valid")

  const notACheckpoint = join(dir, "nonsense.json")
  writeFileSync(notACheckpoint, "{ not json")
  const refused = await cli(["audit", "verify", "--checkpoint", notACheckpoint], env)
  expect(refused.code).toBe(1)
  expect(refused.stderr).toContain("does not hold a checkpoint")
}

describe("audit checkpoints on the embedded PGlite store", () => {
  it("catch the newest records deleted, and refuse forged or unreadable checkpoints", async () => {
    const env = { GATEWAY_STORE: "pglite", DATA_DIR: tempDir() }
    await writeRecords(env, 3)
    await checkpointThenCut(env, async () => {
      const db = await PGlite.create(join(env.DATA_DIR, "pglite"))
      await db.query("DELETE FROM audit_logs WHERE seq = 6")
      await db.close()
    })
  }, 180_000)
})

describe.skipIf(postgresUrl === undefined)("audit checkpoints on PostgreSQL", () => {
  it("catch the newest records deleted", async () => {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    const env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64")
    }
    await writeRecords(env, 3)
    await checkpointThenCut(
      env,
      () => query(database.url, "DELETE FROM audit_logs WHERE seq = 6").then(() => undefined)
    )
  }, 180_000)
})
