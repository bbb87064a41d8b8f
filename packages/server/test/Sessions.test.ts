/**
 * People signed in over HTTP: password sign-in (wrong password and unknown email answer alike), the session
 * cookie, `/v1/me`, CSRF (a cross-origin change, or one without the session's token, is refused), a new session
 * id at every sign-in, revocation and user removal taking effect at the next request, idle and absolute expiry,
 * and audit records that name the person.
 */
import { DEFAULT_SESSION_SETTINGS } from "@gateway-control/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import { addUser, json, PASSWORD, type SignedIn, signIn, withSession } from "./support/SignedIn.ts"
import { openAiProviderAt, startTestServer, type TestServer } from "./support/TestServer.ts"

describe("sessions over HTTP", () => {
  let server: TestServer
  const time = makeMovableClock()
  beforeAll(async () => {
    server = await startTestServer({ clock: time.clock })
  })
  afterAll(() => server.close())

  it("answers a wrong password and an unknown email alike, and records both failures", async () => {
    await addUser(server, "alike@example.com", "member")
    const attempt = (email: string, password: string) =>
      server.request("/v1/auth/password", {
        method: "POST",
        key: null,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password })
      })
    const wrong = await attempt("alike@example.com", "not the password at all")
    const unknown = await attempt("nobody@example.com", "not the password at all")
    expect(wrong.status).toBe(401)
    expect(unknown.status).toBe(401)
    expect(wrong.headers.get("set-cookie")).toBeNull()
    expect(await wrong.text()).toBe(await unknown.text())
    const records = await json(await server.request("/v1/audit-logs?action=sign_in&response_status_code=401"))
    expect(records.records.length).toBeGreaterThanOrEqual(1)
    expect(JSON.stringify(records)).not.toContain("not the password at all")
  })

  it("signs in with an HttpOnly, SameSite=Lax cookie and a new session id every time (no fixation)", async () => {
    await addUser(server, "fixation@example.com", "member")
    const first = await signIn(server, "fixation@example.com")
    expect(first.setCookie).toMatch(/^gwc_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/)
    // Signing in again while holding a session never reuses it.
    const second = await server.request("/v1/auth/password", {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json", cookie: first.cookie },
      body: JSON.stringify({ email: "fixation@example.com", password: PASSWORD })
    })
    const body = await json(second)
    expect(body.session.id).not.toBe(first.sessionId)
    expect(second.headers.get("set-cookie")?.split(";")[0]).not.toBe(first.cookie)
  })

  it("answers /v1/me for a session and for a key", async () => {
    const id = await addUser(server, "me@example.com", "admin")
    const session = await signIn(server, "me@example.com")
    const me = await json(await withSession(server, session, "/v1/me"))
    expect(me).toMatchObject({
      type: "user",
      user: { id, email: "me@example.com", name: "Pat Doe", role: "admin" },
      api_key_id: null,
      session_id: session.sessionId,
      csrf_token: session.csrf
    })
    expect(me.workspaces.map((w: { id: string }) => w.id)).toContain(server.workspaceId)
    const byKey = await json(await server.request("/v1/me"))
    expect(byKey).toMatchObject({ type: "api_key", user: { id: server.ownerId, role: "owner" } })
    expect(byKey.csrf_token).toBeUndefined()
  })

  it("tells a session what the policy lets its person do (GET /v1/scopes `actions`), for the console to offer", async () => {
    const memberId = await addUser(server, "actions-member@example.com", "member")
    const added = await server.send("POST", `/v1/workspaces/${server.workspaceId}/members`, {
      user_id: memberId,
      role: "member"
    })
    expect(added.status, await added.text()).toBe(201)
    await addUser(server, "actions-admin@example.com", "admin")
    const actionsOf = async (email: string) => {
      const answer = await json(await withSession(server, await signIn(server, email), "/v1/scopes"))
      return answer.actions as ReadonlyArray<string>
    }
    const member = await actionsOf("actions-member@example.com")
    expect(member).toEqual(expect.arrayContaining(["prompts.create", "prompts.render", "members.list"]))
    for (
      const adminOnly of ["audit_logs.list", "users.list", "members.create", "api_keys.delete", "scim_tokens.list"]
    ) {
      expect(member).not.toContain(adminOnly)
    }
    const admin = await actionsOf("actions-admin@example.com")
    expect(admin).toEqual(expect.arrayContaining(["audit_logs.list", "users.list", "members.create", "prompts.create"]))
    // Only an owner makes owners.
    expect(admin).not.toContain("users.create.owner")
    const owner = await json(await server.request("/v1/scopes"))
    expect(owner.actions).toContain("users.create.owner")
  })

  it("refuses a change made with the session from another origin, or without its CSRF token; reads pass", async () => {
    await addUser(server, "csrf@example.com", "admin")
    const session = await signIn(server, "csrf@example.com")
    const create = (headers: Record<string, string>) =>
      withSession(server, session, "/v1/workspaces", {
        method: "POST",
        body: JSON.stringify({ name: `Csrf ${Math.random()}` }),
        headers
      })
    const crossSite = await create({ origin: "https://evil.example" })
    expect(crossSite.status).toBe(403)
    expect((await json(crossSite)).error.code).toBe("forbidden")
    // The refusal is recorded under the person whose cookie was sent, and nothing was created.
    const refusals = (await json(
      await server.request("/v1/audit-logs?user_email=csrf@example.com&response_status_code=403")
    )).records
    expect(refusals).toHaveLength(1)
    expect(refusals[0]).toMatchObject({
      user_email: "csrf@example.com",
      session_id: session.sessionId,
      resource_type: "workspace",
      action: "create",
      response_status_code: 403
    })
    const noToken = await create({ "x-csrf-token": "" })
    expect(noToken.status).toBe(403)
    const wrongToken = await create({ "x-csrf-token": "0".repeat(64) })
    expect(wrongToken.status).toBe(403)
    expect(
      (await json(
        await server.request("/v1/audit-logs?user_email=csrf@example.com&response_status_code=403")
      )).records
    ).toHaveLength(3)
    expect(
      (await json(await server.request("/v1/workspaces?page_size=100"))).data.some((w: { name: string }) =>
        w.name.startsWith("Csrf")
      )
    ).toBe(false)
    expect((await create({})).status).toBe(201)
    expect(
      (await withSession(server, session, "/v1/workspaces", { headers: { origin: "https://evil.example" } })).status
    )
      .toBe(200)
  })

  it("acts with the person's own role: a member is refused an admin's change", async () => {
    await addUser(server, "member@example.com", "member")
    const member = await signIn(server, "member@example.com")
    const refused = await withSession(server, member, "/v1/workspaces", {
      method: "POST",
      body: JSON.stringify({ name: "Not mine" })
    })
    expect(refused.status).toBe(403)
    // Not a member of any workspace: the default workspace is hidden from them.
    expect((await withSession(server, member, `/v1/workspaces/${server.workspaceId}`)).status).toBe(404)
  })

  it("names the person, their session and email in the audit records of their changes; filterable by email", async () => {
    await addUser(server, "audited@example.com", "admin")
    const session = await signIn(server, "audited@example.com")
    const made = await withSession(server, session, "/v1/workspaces", {
      method: "POST",
      body: JSON.stringify({ name: "Audited team" })
    })
    expect(made.status).toBe(201)
    const records = (await json(await server.request("/v1/audit-logs?user_email=AUDITED@example.com"))).records
    const change = records.find((r: { resource_type: string }) => r.resource_type === "workspace")
    expect(change).toMatchObject({
      user_type: "user",
      user_email: "audited@example.com",
      session_id: session.sessionId,
      api_key_id: null
    })
    expect(records.some((r: { action: string }) => r.action === "sign_in")).toBe(true)
    const verified = await server.send("GET", "/v1/audit-logs?page_size=1", undefined)
    expect(verified.status).toBe(200)
  })

  it("ends a session at sign-out, revocation and the user's removal: the next request is refused", async () => {
    const id = await addUser(server, "ending@example.com", "admin")
    const one = await signIn(server, "ending@example.com")
    const two = await signIn(server, "ending@example.com")
    const three = await signIn(server, "ending@example.com")
    const listed = await json(await withSession(server, one, "/v1/sessions"))
    expect(listed.data.map((s: { id: string }) => s.id)).toEqual(
      expect.arrayContaining([one.sessionId, two.sessionId, three.sessionId])
    )
    const out = await withSession(server, one, "/v1/auth/sign-out", { method: "POST" })
    expect(out.status).toBe(200)
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0")
    expect((await withSession(server, one, "/v1/me")).status).toBe(401)
    expect((await withSession(server, two, `/v1/sessions/${three.sessionId}`, { method: "DELETE" })).status).toBe(200)
    expect((await withSession(server, three, "/v1/me")).status).toBe(401)
    expect((await withSession(server, two, "/v1/me")).status).toBe(200)
    expect((await server.send("DELETE", `/v1/admin/users/${id}`, undefined)).status).toBeLessThan(300)
    expect((await withSession(server, two, "/v1/me")).status).toBe(401)
  })

  it("ends an idle session, and any session at its absolute timeout", async () => {
    await addUser(server, "expiry@example.com", "member")
    const idle = await signIn(server, "expiry@example.com")
    time.advance(DEFAULT_SESSION_SETTINGS.idleTimeoutMs + 1000)
    expect((await withSession(server, idle, "/v1/me")).status).toBe(401)

    const busy = await signIn(server, "expiry@example.com")
    let elapsed = 0
    while (elapsed + DEFAULT_SESSION_SETTINGS.idleTimeoutMs / 2 < DEFAULT_SESSION_SETTINGS.absoluteTimeoutMs) {
      time.advance(DEFAULT_SESSION_SETTINGS.idleTimeoutMs / 2)
      elapsed += DEFAULT_SESSION_SETTINGS.idleTimeoutMs / 2
      expect((await withSession(server, busy, "/v1/me")).status).toBe(200)
    }
    time.advance(DEFAULT_SESSION_SETTINGS.absoluteTimeoutMs - elapsed)
    expect((await withSession(server, busy, "/v1/me")).status).toBe(401)
  })
})

describe("sign-in attempt limiting", () => {
  let server: TestServer
  const time = makeMovableClock()
  const WINDOW_MS = 60_000
  beforeAll(async () => {
    server = await startTestServer({
      clock: time.clock,
      // Each request names its client address in X-Forwarded-For, which the server trusts here.
      trustProxy: true,
      signInLimits: {
        perAccount: { failures: 3, windowMs: WINDOW_MS },
        perClient: { failures: 5, windowMs: WINDOW_MS }
      }
    })
  })
  afterAll(() => server.close())

  const attempt = (email: string, password: string, client: string) =>
    server.request("/v1/auth/password", {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json", "x-forwarded-for": client },
      body: JSON.stringify({ email, password })
    })
  const withoutNumbers = (text: string) => text.replace(/\d+/g, "N")

  it("refuses an email after its failures, known or unknown alike, with retry-after; the limit lifts", async () => {
    await addUser(server, "limited@example.com", "member")
    for (let i = 0; i < 3; i++) {
      expect((await attempt("limited@example.com", "wrong password here", `10.1.0.${i}`)).status).toBe(401)
      expect((await attempt("ghost@example.com", "wrong password here", `10.2.0.${i}`)).status).toBe(401)
    }
    // From addresses that never failed: the email's own failures refuse it, the right password included.
    const known = await attempt("limited@example.com", PASSWORD, "10.1.1.1")
    const unknown = await attempt("ghost@example.com", PASSWORD, "10.2.1.1")
    expect(known.status).toBe(429)
    expect(unknown.status).toBe(429)
    expect(known.headers.get("set-cookie")).toBeNull()
    expect(Number(known.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(Number(known.headers.get("retry-after"))).toBeLessThanOrEqual(WINDOW_MS / 1000)
    expect(Number(unknown.headers.get("retry-after"))).toBeGreaterThan(0)
    const [knownText, unknownText] = [await known.text(), await unknown.text()]
    expect(withoutNumbers(knownText)).toBe(withoutNumbers(unknownText))
    expect(JSON.parse(knownText).error).toMatchObject({ code: "rate_limited", type: "rate_limit_error" })
    expect(JSON.parse(knownText).error.message).toMatch(/retry in \d+ s/)

    time.advance(WINDOW_MS + 1000)
    const lifted = await attempt("limited@example.com", PASSWORD, "10.1.1.1")
    expect(lifted.status, await lifted.text()).toBe(200)
  })

  it("refuses a client address after its failures, whatever email it tries; other addresses go on", async () => {
    await addUser(server, "bystander@example.com", "member")
    for (let i = 0; i < 5; i++) {
      expect((await attempt(`probe${i}@example.com`, "wrong password here", "10.3.0.1")).status).toBe(401)
    }
    expect((await attempt("bystander@example.com", PASSWORD, "10.3.0.1")).status).toBe(429)
    expect((await attempt("bystander@example.com", PASSWORD, "10.3.0.2")).status).toBe(200)
    time.advance(WINDOW_MS + 1000)
    expect((await attempt("bystander@example.com", PASSWORD, "10.3.0.1")).status).toBe(200)
  })

  it("counts failures only: sign-ins that succeed use up nothing", async () => {
    await addUser(server, "regular@example.com", "member")
    expect((await attempt("regular@example.com", "wrong password here", "10.4.0.1")).status).toBe(401)
    for (let i = 0; i < 6; i++) expect((await attempt("regular@example.com", PASSWORD, "10.4.0.1")).status).toBe(200)
    expect((await attempt("regular@example.com", "wrong password here", "10.4.0.1")).status).toBe(401)
    expect((await attempt("regular@example.com", "wrong password here", "10.4.0.1")).status).toBe(401)
    expect((await attempt("regular@example.com", PASSWORD, "10.4.0.1")).status).toBe(429)
  })
})

describe("sessions with the operator's settings (SESSION_IDLE_TIMEOUT_MS, SESSION_ABSOLUTE_TIMEOUT_MS, PUBLIC_URL)", () => {
  const PUBLIC_URL = "https://gateway.example.com"
  const IDLE_MS = 60_000
  const ABSOLUTE_MS = 300_000
  let server: TestServer
  const time = makeMovableClock()
  beforeAll(async () => {
    server = await startTestServer({
      clock: time.clock,
      providers: {
        ...openAiProviderAt(),
        signIn: { publicUrl: PUBLIC_URL, operatorProvider: null },
        sessions: { idleTimeoutMs: IDLE_MS, absoluteTimeoutMs: ABSOLUTE_MS }
      }
    })
  })
  afterAll(() => server.close())

  /** A session used from the gateway's public origin, as a browser on PUBLIC_URL's pages would. */
  const fromPublicOrigin = (session: SignedIn, path: string, init: RequestInit = {}) =>
    withSession(server, session, path, { ...init, headers: { origin: PUBLIC_URL, ...init.headers } })

  it("ends a session idle for the configured time, and any at the configured absolute timeout", async () => {
    await addUser(server, "timeouts@example.com", "member")
    const idle = await signIn(server, "timeouts@example.com")
    // An https PUBLIC_URL makes the cookie Secure, __Host- named, and as long-lived as the absolute timeout.
    expect(idle.setCookie).toMatch(/^__Host-gwc_session=.*; Secure; Max-Age=(299|300)$/)
    time.advance(IDLE_MS - 5_000)
    expect((await fromPublicOrigin(idle, "/v1/me")).status).toBe(200)
    time.advance(IDLE_MS + 1_000)
    expect((await fromPublicOrigin(idle, "/v1/me")).status).toBe(401)

    const busy = await signIn(server, "timeouts@example.com")
    for (let elapsed = 0; elapsed + IDLE_MS / 2 < ABSOLUTE_MS; elapsed += IDLE_MS / 2) {
      time.advance(IDLE_MS / 2)
      expect((await fromPublicOrigin(busy, "/v1/me")).status).toBe(200)
    }
    time.advance(IDLE_MS / 2)
    expect((await fromPublicOrigin(busy, "/v1/me")).status).toBe(401)
  })

  it("takes PUBLIC_URL's origin as the gateway's own: a change from the Host's origin is refused", async () => {
    await addUser(server, "public-origin@example.com", "admin")
    const session = await signIn(server, "public-origin@example.com")
    const create = (origin: string) =>
      withSession(server, session, "/v1/workspaces", {
        method: "POST",
        body: JSON.stringify({ name: `Origin ${Math.random()}` }),
        headers: { origin }
      })
    const fromHost = await create(server.baseUrl)
    expect(fromHost.status).toBe(403)
    expect((await json(fromHost)).error.message).toContain(PUBLIC_URL)
    expect((await create(PUBLIC_URL)).status).toBe(201)
  })
})
