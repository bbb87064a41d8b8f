/**
 * Local accounts hardened, over HTTP: a TOTP second factor (enrolled by the person signed in, confirmed by a code,
 * disabled with a current code), password sign-in in two steps for an enrolled person (a single-use challenge,
 * codes used once), an organisation that requires a second factor (a person without one is let in only to enrol),
 * and turning password sign-in off (refused without an enabled identity provider; then refused for every email
 * alike). Codes are computed here with `otpauth`, as an authenticator app would.
 */
import * as OTPAuth from "otpauth"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import { addUser, json, PASSWORD, sessionOf, type SignedIn, withSession } from "./support/SignedIn.ts"
import { startTestServer, type TestServer } from "./support/TestServer.ts"

describe("local accounts: second factor, required second factor, password sign-in off", () => {
  let server: TestServer
  const time = makeMovableClock()
  beforeAll(async () => {
    server = await startTestServer({ clock: time.clock })
  })
  afterAll(() => server.close())

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.request(path, {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body)
    })
  const passwordStep = (email: string, password = PASSWORD) => post("/v1/auth/password", { email, password })
  /** Enrols and confirms a factor for the person signed in; answers their authenticator. */
  const enrol = async (session: SignedIn) => {
    const enrolled = await withSession(server, session, "/v1/me/second-factor/totp", { method: "POST" })
    const body = await json(enrolled)
    expect(enrolled.status, JSON.stringify(body)).toBe(201)
    expect(body.otpauth_uri).toMatch(/^otpauth:\/\/totp\//)
    const authenticator = OTPAuth.URI.parse(body.otpauth_uri)
    expect(authenticator).toBeInstanceOf(OTPAuth.TOTP)
    return authenticator as OTPAuth.TOTP
  }
  /**
   * The code at the server's time (its clock is moved forward below), not the wall clock's: a code read 30 s behind
   * the server's clock is already a step old, and two steps old if the server's step turns before it checks it.
   */
  const codeAt = (authenticator: OTPAuth.TOTP, offsetMs = 0) =>
    authenticator.generate({ timestamp: time.clock.currentTimeMillisUnsafe() + offsetMs })

  it("enrols a second factor, confirmed by a code; then password sign-in takes two steps, each code once", async () => {
    await addUser(server, "totp@example.com", "member")
    const first = await sessionOf(await passwordStep("totp@example.com"))
    const authenticator = await enrol(first)
    // The secret is answered once, never read back, and kept encrypted.
    const status = await json(await withSession(server, first, "/v1/me/second-factor"))
    expect(status).toMatchObject({ object: "second-factor", totp: "pending", required: false })
    expect(JSON.stringify(status)).not.toContain(authenticator.secret.base32)
    const wrong = await withSession(server, first, "/v1/me/second-factor/totp/confirm", {
      method: "POST",
      body: JSON.stringify({ code: codeAt(authenticator, 600_000) })
    })
    expect(wrong.status).toBe(400)
    const confirming = codeAt(authenticator)
    const confirmed = await withSession(server, first, "/v1/me/second-factor/totp/confirm", {
      method: "POST",
      body: JSON.stringify({ code: confirming })
    })
    expect(confirmed.status, await confirmed.clone().text()).toBe(200)
    expect((await json(confirmed)).totp).toBe("active")

    // First step: no session, a challenge.
    const step1 = await passwordStep("totp@example.com")
    expect(step1.status).toBe(200)
    expect(step1.headers.get("set-cookie")).toBeNull()
    const { challenge, object } = await json(step1)
    expect(object).toBe("second-factor-required")
    // The code confirmation used is spent: replayed, it is refused (and the challenge with it).
    const replayed = await post("/v1/auth/second-factor", { challenge, code: confirming })
    expect(replayed.status).toBe(401)
    expect(replayed.headers.get("set-cookie")).toBeNull()
    // A challenge is single-use, right code or wrong.
    const next = codeAt(authenticator, 30_000)
    expect((await post("/v1/auth/second-factor", { challenge, code: next })).status).toBe(401)
    const { challenge: fresh } = await json(await passwordStep("totp@example.com"))
    const signedIn = await sessionOf(await post("/v1/auth/second-factor", { challenge: fresh, code: next }))
    expect((await json(await withSession(server, signedIn, "/v1/me"))).user.email).toBe("totp@example.com")
    // The same code, on a new challenge: a replay.
    const { challenge: again } = await json(await passwordStep("totp@example.com"))
    expect((await post("/v1/auth/second-factor", { challenge: again, code: next })).status).toBe(401)

    // Failures are recorded, with neither code nor secret.
    const records = await json(await server.request("/v1/audit-logs?action=sign_in&response_status_code=401"))
    const text = JSON.stringify(records)
    expect(records.records.some((r: { request_body: unknown }) => JSON.stringify(r.request_body).includes("totp")))
      .toBe(true)
    expect(text).not.toContain(next)
    expect(text).not.toContain(authenticator.secret.base32)

    // Disabling needs a current, unused code.
    const noCode = await withSession(server, signedIn, "/v1/me/second-factor/totp/disable", {
      method: "POST",
      body: JSON.stringify({ code: next })
    })
    expect(noCode.status).toBe(400)
    // A step later (the server's clock moved on), the next code is unused.
    time.advance(30_000)
    const disabled = await withSession(server, signedIn, "/v1/me/second-factor/totp/disable", {
      method: "POST",
      body: JSON.stringify({ code: codeAt(authenticator, 30_000) })
    })
    expect(disabled.status, await disabled.clone().text()).toBe(200)
    expect((await json(disabled)).totp).toBe("none")
    expect((await json(await passwordStep("totp@example.com"))).object).toBe("session")
  })

  it("enrols only for a person signed in, and refuses a second enrolment while one is active", async () => {
    expect((await server.send("POST", "/v1/me/second-factor/totp", undefined)).status).toBe(400)
    await addUser(server, "twice@example.com", "member")
    const session = await sessionOf(await passwordStep("twice@example.com"))
    const authenticator = await enrol(session)
    const confirmed = await withSession(server, session, "/v1/me/second-factor/totp/confirm", {
      method: "POST",
      body: JSON.stringify({ code: codeAt(authenticator) })
    })
    expect(confirmed.status, await confirmed.clone().text()).toBe(200)
    expect((await withSession(server, session, "/v1/me/second-factor/totp", { method: "POST" })).status).toBe(409)
  })

  it("requires a second factor when the organisation says so: a person without one may only enrol", async () => {
    await addUser(server, "required@example.com", "admin")
    const member = await addUser(server, "unenrolled@example.com", "member")
    // A member may not change the setting.
    const memberSession = await sessionOf(await passwordStep("unenrolled@example.com"))
    const refused = await withSession(server, memberSession, "/v1/admin/sign-in-settings", {
      method: "PATCH",
      body: JSON.stringify({ require_second_factor: true })
    })
    expect(refused.status).toBe(403)
    const set = await server.send("PATCH", "/v1/admin/sign-in-settings", { require_second_factor: true })
    expect(set.status).toBe(200)
    expect(await json(set)).toMatchObject({ object: "sign-in-settings", require_second_factor: true })
    const records = await json(await server.request("/v1/audit-logs?resource_type=sign_in_settings"))
    expect(records.records.map((r: { response_status_code: number }) => r.response_status_code)).toEqual(
      expect.arrayContaining([200, 403])
    )

    // Signed in without a factor: the person sees themselves and enrols, nothing else.
    const restricted = await sessionOf(await passwordStep("required@example.com"))
    expect(await json(await withSession(server, restricted, "/v1/me/second-factor"))).toMatchObject({
      totp: "none",
      required: true
    })
    // `GET /v1/me` tells the console (and any client) that the session may only enrol.
    const restrictedMe = await json(await withSession(server, restricted, "/v1/me"))
    expect(restrictedMe).toMatchObject({
      type: "user",
      user: { email: "required@example.com" },
      second_factor: { totp: "none", required: true, enrolment_only: true }
    })
    expect((await withSession(server, restricted, "/v1/workspaces")).status).toBe(403)
    expect(
      (await withSession(server, restricted, "/v1/workspaces", {
        method: "POST",
        body: JSON.stringify({ name: "Nope" })
      }))
        .status
    ).toBe(403)
    const authenticator = await enrol(restricted)
    expect((await withSession(server, restricted, "/v1/workspaces")).status).toBe(403)
    const confirmed = await withSession(server, restricted, "/v1/me/second-factor/totp/confirm", {
      method: "POST",
      body: JSON.stringify({ code: codeAt(authenticator) })
    })
    expect(confirmed.status).toBe(200)
    // Enrolled: the same session now acts with the person's role.
    expect((await withSession(server, restricted, "/v1/workspaces")).status).toBe(200)
    expect((await json(await withSession(server, restricted, "/v1/me"))).second_factor).toEqual({
      totp: "active",
      required: true,
      enrolment_only: false
    })
    // A person without a factor who accepts an invitation with a password gets an enrolment-only session too.
    const inviting = await server.send("POST", "/v1/admin/users/invites", {
      email: "invited-2fa@example.com",
      role: "member",
      workspaces: [{ id: "default", role: "member" }]
    })
    const invited = await json(inviting)
    expect(inviting.status, JSON.stringify(invited)).toBe(201)
    const accepted = await sessionOf(
      await post("/v1/auth/invite", { token: new URL(invited.invite_link).hash.slice(1), password: PASSWORD })
    )
    expect((await json(await withSession(server, accepted, "/v1/me"))).second_factor).toEqual({
      totp: "none",
      required: true,
      enrolment_only: true
    })
    expect((await withSession(server, accepted, "/v1/workspaces")).status).toBe(403)
    // A key stands for its user, if any: never enrolment-only; a service key has no person and no factor.
    expect((await json(await server.request("/v1/me"))).second_factor).toMatchObject({ enrolment_only: false })
    expect(member).toBeTruthy()
    expect((await server.send("PATCH", "/v1/admin/sign-in-settings", { require_second_factor: false })).status)
      .toBe(200)
  })

  it("turns password sign-in off only with an enabled identity provider; then refuses it for every email alike", async () => {
    await addUser(server, "local@example.com", "member")
    const refused = await server.send("PATCH", "/v1/admin/sign-in-settings", { local_accounts_enabled: false })
    expect(refused.status).toBe(400)
    const error = (await json(refused)).error
    expect(error).toMatchObject({ code: "invalid_request", param: "local_accounts_enabled" })
    expect(error.message).toContain("no enabled identity provider")
    expect((await json(await server.request("/v1/admin/sign-in-settings"))).local_accounts_enabled).toBe(true)
    expect((await passwordStep("local@example.com")).status).toBe(200)

    const provider = await server.send("POST", "/v1/admin/identity-providers", {
      name: "Corporate SSO",
      issuer: "https://sso.example.com",
      client_id: "gateway-control",
      client_secret: "a client secret"
    })
    expect(provider.status).toBe(201)
    const off = await server.send("PATCH", "/v1/admin/sign-in-settings", { local_accounts_enabled: false })
    expect(off.status, await off.clone().text()).toBe(200)
    expect((await json(off)).local_accounts_enabled).toBe(false)

    // A wrong password and an unknown email answer as ever; only the right password learns it is off.
    const wrong = await passwordStep("local@example.com", "not the password at all")
    const unknown = await passwordStep("nobody-here@example.com", "not the password at all")
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).toBe(await unknown.text())
    const right = await passwordStep("local@example.com")
    expect(right.status).toBe(401)
    expect(right.headers.get("set-cookie")).toBeNull()
    expect((await json(right)).error.message).toContain("turned off")
    // The admin key still works: the owner's way back.
    const on = await server.send("PATCH", "/v1/admin/sign-in-settings", { local_accounts_enabled: true })
    expect(on.status).toBe(200)
    expect((await passwordStep("local@example.com")).status).toBe(200)
  })
})
