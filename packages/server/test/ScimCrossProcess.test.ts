/**
 * Deprovisioning over SCIM reaches every process: two `serve` processes on one PostgreSQL; a user set
 * `active: false` through process A has their workspace-user key refused by process B within 1 s (the change
 * feed), though B had it cached; reactivating the user revives nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ServerProcess } from "./support/ServerProcess.ts"
import { call, json, postgresUrl, startTwoProcesses, type TwoProcesses, within } from "./support/TwoProcesses.ts"

const scim = (server: ServerProcess, token: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.baseUrl}/scim/v2${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/scim+json" })
    },
    body: body === undefined ? undefined : JSON.stringify(body)
  })

const activeTo = (active: boolean) => ({
  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  Operations: [{ op: "replace", path: "active", value: active }]
})

describe.skipIf(postgresUrl === undefined)("SCIM deprovisioning across two processes on one PostgreSQL", () => {
  let processes: TwoProcesses
  let a: ServerProcess
  let b: ServerProcess
  let admin: string
  let workspaceId: string

  beforeAll(async () => {
    processes = await startTwoProcesses()
    ;({ a, admin, b, workspaceId } = processes)
  }, 120_000)

  afterAll(() => processes?.close())

  it("a user set inactive through A has their key refused by B within 1 s; reactivation revives nothing", async () => {
    const { token } = await json<{ token: string }>(
      await call(a, admin, "POST", "/v1/admin/scim-tokens", { name: "idp" }),
      201
    )
    const user = await json<{ id: string }>(
      await scim(a, token, "POST", "/Users", { userName: "leaver@cross.example", name: { formatted: "Lee Ver" } }),
      201
    )
    await json(
      await call(a, admin, "POST", `/v1/workspaces/${workspaceId}/members`, { user_id: user.id, role: "member" }),
      201
    )
    const key = await json<{ key: string }>(
      await call(a, admin, "POST", "/v1/api-keys/workspace/user", {
        name: "leaver's key",
        workspace_id: workspaceId,
        user_id: user.id,
        scopes: ["workspaces.list"]
      }),
      201
    )
    // B resolves the key, and so caches it.
    expect((await call(b, key.key, "GET", "/v1/workspaces")).status).toBe(200)
    await json(await scim(a, token, "PATCH", `/Users/${user.id}`, activeTo(false)), 200)
    expect((await call(a, key.key, "GET", "/v1/workspaces")).status).toBe(401)
    await within(1_000, async () => (await call(b, key.key, "GET", "/v1/workspaces")).status === 401)

    // Through B, the user is inactive too; reactivating them there revives the key nowhere.
    const seen = await json<{ active: boolean }>(await scim(b, token, "GET", `/Users/${user.id}`), 200)
    expect(seen.active).toBe(false)
    await json(await scim(b, token, "PATCH", `/Users/${user.id}`, activeTo(true)), 200)
    expect((await call(a, key.key, "GET", "/v1/workspaces")).status).toBe(401)
    expect((await call(b, key.key, "GET", "/v1/workspaces")).status).toBe(401)
  }, 60_000)
})
