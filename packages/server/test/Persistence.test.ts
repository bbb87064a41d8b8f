import { PGlite } from "@electric-sql/pglite"
import { execFile } from "node:child_process"
import { join } from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { typedCalls } from "./support/ApiClient.ts"
import { cleanupsAfterAll, tempDirWith } from "./support/Cleanups.ts"
import { freshDatabase, postgresUrl } from "./support/Databases.ts"
import { cli, type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const exec = promisify(execFile)
const cleanups = cleanupsAfterAll()
const tempDataDir = tempDirWith(cleanups, "gwc-data-")

const stop = async (server: ServerProcess, signal: NodeJS.Signals = "SIGTERM") => {
  server.child.kill(signal)
  return server.exited
}

/** Raw HTTP: the writes count answers while the server is killed under them. */
const createWorkspace = (server: ServerProcess, key: string, body: Record<string, unknown>) =>
  fetch(`${server.baseUrl}/v1/workspaces`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-service-api-key": key },
    body: JSON.stringify(body)
  })

/** Every workspace, page by page, through the typed client (a 200 with the declared body). */
const listAll = async (server: ServerProcess, key: string) => {
  const calls = typedCalls(server.baseUrl, key)
  const page = (current_page: number) =>
    calls.api((client) => client.workspaces.list({ query: { page_size: 1000, current_page } }))
  const first = await page(0)
  const data = [...first.data]
  // Audited writes outrun one page in the time before the kill.
  for (let current = 1; data.length < first.total; current++) data.push(...(await page(current)).data)
  return { total: first.total, data }
}

/** Keeps `inFlight` creates running until the server goes away; returns how many were answered 201. */
const writeUntilKilled = async (server: ServerProcess, key: string, inFlight: number) => {
  let created = 0
  let stopped = false
  let counter = 0
  const worker = async () => {
    while (!stopped) {
      try {
        const response = await createWorkspace(server, key, {
          name: `crash ${counter++}`,
          description: "x".repeat(200)
        })
        if (response.status === 201) created++
        await response.arrayBuffer()
      } catch {
        stopped = true
      }
    }
  }
  const workers = Array.from({ length: inFlight }, worker)
  setTimeout(() => server.child.kill("SIGKILL"), 1500)
  await Promise.all(workers)
  return created
}

describe("the embedded PGlite store", () => {
  it("is the default, and a restart keeps what was written without bootstrapping again", async () => {
    const dataDir = tempDataDir()
    const first = await startServerProcess({ GATEWAY_STORE: "", DATA_DIR: dataDir })
    const key = first.adminKey!
    expect(key).toBeDefined()
    expect((await createWorkspace(first, key, { name: "Kept", slug: "kept" })).status).toBe(201)
    expect(await stop(first)).toBe(0)

    const second = await startServerProcess({ GATEWAY_STORE: "", DATA_DIR: dataDir })
    cleanups.push(() => void second.child.kill("SIGKILL"))
    expect(second.adminKey).toBeUndefined()
    const listed = await listAll(second, key)
    expect(listed.data.map((w) => w.slug)).toEqual(["default", "kept"])

    // The data directory is one process's: a second process is refused while the server runs.
    const refused = await exec(process.execPath, [...cli, "migrate"], { env: { ...process.env, DATA_DIR: dataDir } })
      .then(
        () => undefined,
        (error: { code: number; stderr: string }) => error
      )
    expect(refused?.code).toBe(1)
    expect(refused?.stderr).toContain("is in use by process")
    expect(await stop(second)).toBe(0)

    // Once it stopped, bootstrap is refused because the store is not empty.
    const again = await exec(
      process.execPath,
      [...cli, "bootstrap", "--organisation-name", "X", "--owner-email", "x@y.z"],
      {
        env: { ...process.env, DATA_DIR: dataDir }
      }
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error
    )
    expect(again?.code).toBe(1)
    expect(again?.stderr).toContain("already has an organisation")

    // The audit chain is intact (the first start's bootstrap and owner link, the create, the refused bootstrap), then an
    // altered record breaks it where it was altered.
    const env = { ...process.env, DATA_DIR: dataDir }
    const verified = await exec(process.execPath, [...cli, "audit", "verify"], { env })
    expect(verified.stdout).toMatch(/^ok: 4 audit records in 1 chain, all intact/)
    const db = await PGlite.create(join(dataDir, "pglite"))
    await db.query("UPDATE audit_logs SET response_status_code = 200 WHERE seq = 1")
    await db.close()
    const tampered = await exec(process.execPath, [...cli, "audit", "verify"], { env }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error
    )
    expect(tampered?.code).toBe(1)
    expect(tampered?.stdout).toContain("broken: record 1")
  }, 120_000)

  it("survives SIGKILL during writes: it reopens, migrates and holds only whole records", async () => {
    const dataDir = tempDataDir()
    const server = await startServerProcess({ GATEWAY_STORE: "pglite", DATA_DIR: dataDir })
    const key = server.adminKey!
    const created = await writeUntilKilled(server, key, 8)
    expect(created).toBeGreaterThan(0)
    await server.exited

    const migrated = await exec(process.execPath, [...cli, "migrate"], { env: { ...process.env, DATA_DIR: dataDir } })
    expect(JSON.parse(migrated.stdout)).toMatchObject({ store: "pglite" })

    const reopened = await startServerProcess({ GATEWAY_STORE: "pglite", DATA_DIR: dataDir })
    cleanups.push(() => void reopened.child.kill("SIGKILL"))
    const listed = await listAll(reopened, key)
    const crashed = listed.data.filter((w) => String(w.name).startsWith("crash "))
    expect(listed.total).toBe(listed.data.length)
    // Everything answered 201 before the kill was committed; nothing half-written appears.
    expect(crashed.length).toBeGreaterThanOrEqual(created)
    for (const workspace of crashed) {
      expect(workspace).toMatchObject({ description: "x".repeat(200), organisation_id: expect.any(String) })
      expect(String(workspace.slug)).toMatch(/^crash-\d+$/)
    }
    expect(await stop(reopened)).toBe(0)
  }, 120_000)
})

describe.skipIf(postgresUrl === undefined)("PostgreSQL", () => {
  it("DATABASE_URL alone selects PostgreSQL; a SIGKILL mid-write leaves only whole records", async () => {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    const server = await startServerProcess({ GATEWAY_STORE: "", DATABASE_URL: database.url })
    const key = server.adminKey!
    expect(key).toBeDefined()
    const created = await writeUntilKilled(server, key, 8)
    expect(created).toBeGreaterThan(0)
    await server.exited

    const reopened = await startServerProcess({ GATEWAY_STORE: "", DATABASE_URL: database.url })
    cleanups.push(() => void reopened.child.kill("SIGKILL"))
    expect(reopened.adminKey).toBeUndefined()
    const listed = await listAll(reopened, key)
    const crashed = listed.data.filter((w) => String(w.name).startsWith("crash "))
    expect(crashed.length).toBeGreaterThanOrEqual(created)
    for (const workspace of crashed) expect(workspace.description).toBe("x".repeat(200))
    expect(await stop(reopened)).toBe(0)
  }, 120_000)

  it("two processes on one database: concurrent creates of one slug give exactly one 201", async () => {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    // Both start at once: the migrations must run exactly once, and only one of them bootstraps.
    const [a, b] = await Promise.all([
      startServerProcess({ GATEWAY_STORE: "postgres", DATABASE_URL: database.url }),
      startServerProcess({ GATEWAY_STORE: "postgres", DATABASE_URL: database.url })
    ])
    cleanups.push(() => void a.child.kill("SIGKILL"), () => void b.child.kill("SIGKILL"))
    const keys = [a.adminKey, b.adminKey].filter((k) => k !== undefined)
    expect(keys).toHaveLength(1)
    const key = keys[0]!

    const statuses = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          createWorkspace(i % 2 === 0 ? a : b, key, { name: `Race ${i}`, slug: "contended" }).then((r) => r.status)
      )
    )
    expect(statuses.filter((s) => s === 201)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(19)
    const listed = await listAll(a, key)
    expect(listed.data.filter((w) => w.slug === "contended")).toHaveLength(1)
    expect(await stop(a)).toBe(0)
    expect(await stop(b)).toBe(0)
  }, 120_000)
})
