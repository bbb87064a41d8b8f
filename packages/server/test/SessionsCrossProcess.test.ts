/**
 * People's sessions across two `serve` processes on one PostgreSQL: a person signed in through process B is
 * refused (or sees their new role) on their next request to B within 1 s of their session being revoked, their
 * role changed or their user removed through process A.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, json, postgresUrl, startTwoProcesses, type TwoProcesses, within } from "./support/TwoProcesses.ts"

const PASSWORD = "a long enough password"

describe.skipIf(postgresUrl === undefined)("sessions across two processes on one PostgreSQL", () => {
  let processes: TwoProcesses

  beforeAll(async () => {
    processes = await startTwoProcesses()
  }, 120_000)

  afterAll(() => processes?.close())

  /** A user with a password, made through A. */
  const person = async (email: string, role: "admin" | "member") => {
    const { a, admin } = processes
    const user = await json<{ id: string }>(await call(a, admin, "POST", "/v1/users", { email, role }), 201)
    await json(await call(a, admin, "PUT", "/v1/auth/password", { user_id: user.id, password: PASSWORD }), 200)
    return user.id
  }

  /** Signs the person in through B: the cookie, and the session's id. */
  const signInAtB = async (email: string) => {
    const response = await fetch(`${processes.b.baseUrl}/v1/auth/password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: PASSWORD })
    })
    const body = await json<{ session: { id: string } }>(response, 200)
    return { cookie: response.headers.get("set-cookie")!.split(";")[0]!, sessionId: body.session.id }
  }

  /** `/v1/me` through B with the session's cookie. */
  const meAtB = (cookie: string) => fetch(`${processes.b.baseUrl}/v1/me`, { headers: { cookie } })

  it("a session revoked through A is refused by B within 1 s; the person's other session goes on", async () => {
    await person("revoked@cross.example", "member")
    const [revoked, kept] = [await signInAtB("revoked@cross.example"), await signInAtB("revoked@cross.example")]
    expect((await meAtB(revoked.cookie)).status).toBe(200)
    await json(await call(processes.a, processes.admin, "DELETE", `/v1/sessions/${revoked.sessionId}`), 200)
    const tookMs = await within(1_000, async () => (await meAtB(revoked.cookie)).status === 401)
    expect(tookMs).toBeLessThan(1_000)
    expect((await meAtB(kept.cookie)).status).toBe(200)
  })

  it("a role changed through A is the person's role at B within 1 s", async () => {
    const id = await person("promoted@cross.example", "admin")
    const session = await signInAtB("promoted@cross.example")
    const roleAtB = async () => (await json<{ user: { role: string } }>(await meAtB(session.cookie), 200)).user.role
    expect(await roleAtB()).toBe("admin")
    await json(await call(processes.a, processes.admin, "PUT", `/v1/admin/users/${id}`, { role: "member" }), 200)
    await within(1_000, async () => (await roleAtB()) === "member")
    // As a member now, an admin's change through B is refused.
    const csrf = (await json<{ csrf_token: string }>(await meAtB(session.cookie), 200)).csrf_token
    const change = await fetch(`${processes.b.baseUrl}/v1/workspaces`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "x-csrf-token": csrf,
        origin: processes.b.baseUrl,
        "content-type": "application/json"
      },
      body: JSON.stringify({ name: "Not for members" })
    })
    expect(change.status).toBe(403)
  })

  it("a user removed through A is signed out at B within 1 s", async () => {
    const id = await person("leaver@cross.example", "member")
    const session = await signInAtB("leaver@cross.example")
    expect((await meAtB(session.cookie)).status).toBe(200)
    expect((await call(processes.a, processes.admin, "DELETE", `/v1/admin/users/${id}`)).status).toBeLessThan(300)
    const tookMs = await within(1_000, async () => (await meAtB(session.cookie)).status === 401)
    expect(tookMs).toBeLessThan(1_000)
  })
}, 120_000)
