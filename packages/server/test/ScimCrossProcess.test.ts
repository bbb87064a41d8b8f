/**
 * Deprovisioning over SCIM reaches every process: two `serve` processes on one PostgreSQL; a user set
 * `active: false` (or deleted) through process A has their session and their workspace-user key refused by
 * process B within 1 s (the change feed for keys, the shared store for sessions), though B had the key cached;
 * reactivating the user revives nothing, and they cannot sign in again while inactive.
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

const PASSWORD = "a long enough password for the leaver"

/** Signs the user in by password through `server`: the session's cookie. */
const signIn = async (server: ServerProcess, email: string) => {
  const response = await fetch(`${server.baseUrl}/v1/auth/password`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD })
  })
  expect(response.status, await response.clone().text()).toBe(200)
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!
}

/** A console request made with the session's cookie: who the caller is. */
const me = (server: ServerProcess, cookie: string) =>
  fetch(`${server.baseUrl}/v1/me`, { headers: { cookie } }).then((response) => response.status)

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

  /** A SCIM-provisioned member of the workspace with a password, a session (through A) and a user key. */
  const signedInLeaver = async (token: string, email: string) => {
    const user = await json<{ id: string }>(
      await scim(a, token, "POST", "/Users", { userName: email, name: { formatted: "Lee Ver" } }),
      201
    )
    await json(
      await call(a, admin, "POST", `/v1/workspaces/${workspaceId}/members`, { user_id: user.id, role: "member" }),
      201
    )
    await json(await call(a, admin, "PUT", "/v1/auth/password", { user_id: user.id, password: PASSWORD }), 200)
    const cookie = await signIn(a, email)
    const key = await json<{ key: string }>(
      await call(a, admin, "POST", "/v1/api-keys/workspace/user", {
        name: "leaver's key",
        workspace_id: workspaceId,
        user_id: user.id,
        scopes: ["workspaces.list"]
      }),
      201
    )
    // B admits the session and resolves (and caches) the key.
    expect(await me(b, cookie)).toBe(200)
    expect((await call(b, key.key, "GET", "/v1/workspaces")).status).toBe(200)
    return { cookie, id: user.id, key: key.key }
  }

  it("a user signed in with a session and a key, set inactive through A, is refused both by B within 1 s", async () => {
    const { token } = await json<{ token: string }>(
      await call(a, admin, "POST", "/v1/admin/scim-tokens", { name: "idp-sessions" }),
      201
    )
    const email = "signed-in-leaver@cross.example"
    const leaver = await signedInLeaver(token, email)
    await json(await scim(a, token, "PATCH", `/Users/${leaver.id}`, activeTo(false)), 200)
    expect(await me(a, leaver.cookie)).toBe(401)
    await within(
      1_000,
      async () =>
        (await me(b, leaver.cookie)) === 401 &&
        (await call(b, leaver.key, "GET", "/v1/workspaces")).status === 401
    )
    // Inactive, the password signs in nowhere, and answers as a wrong one would.
    const refused = await fetch(`${b.baseUrl}/v1/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD })
    })
    expect(refused.status).toBe(401)
    expect(refused.headers.get("set-cookie")).toBeNull()

    // Reactivated, the old session stays ended in both processes; a new sign-in works.
    await json(await scim(b, token, "PATCH", `/Users/${leaver.id}`, activeTo(true)), 200)
    expect(await me(a, leaver.cookie)).toBe(401)
    expect(await me(b, leaver.cookie)).toBe(401)
    expect(await me(b, await signIn(b, email))).toBe(200)

    // The audit log says what deprovisioning ended.
    const { records } = await json<{ records: Array<unknown> }>(
      await call(a, admin, "GET", "/v1/audit-logs?resource_type=user&action=update&page_size=1000"),
      200
    )
    const deprovisioning = records.map((record) => JSON.stringify(record)).filter((record) =>
      record.includes(leaver.id) && record.includes("sessions_ended")
    )
    expect(deprovisioning).toHaveLength(1)
  }, 60_000)

  it("a signed-in user deleted through A has their session and key refused by B within 1 s", async () => {
    const { token } = await json<{ token: string }>(
      await call(a, admin, "POST", "/v1/admin/scim-tokens", { name: "idp-delete" }),
      201
    )
    const leaver = await signedInLeaver(token, "deleted-leaver@cross.example")
    expect((await scim(a, token, "DELETE", `/Users/${leaver.id}`)).status).toBe(204)
    await within(
      1_000,
      async () =>
        (await me(b, leaver.cookie)) === 401 &&
        (await call(b, leaver.key, "GET", "/v1/workspaces")).status === 401
    )
  }, 60_000)
})
