/**
 * Invitations (Portkey's `/admin/users/invites`): an admin invites an email with an organisation role and
 * workspace roles; the single-use link expires, can be resent (the old link stops) and revoked; accepting it
 * makes the user with those roles, once. On every store.
 */
import { Invites, UserStore } from "@gateway-control/domain"
import { Clock, Effect, Exit, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeMovableClock } from "./support/MovableClock.ts"
import {
  availableStores,
  errorOf,
  jsonOf,
  openAiProviderAt,
  startTestServer,
  type TestServer
} from "./support/TestServer.ts"

const DAY_MS = 24 * 3_600_000

describe.each(availableStores)("invitations on the %s store", (store) => {
  const clock = makeMovableClock()
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ store, clock: clock.clock })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  let counter = 0
  const invite = async (fields: Record<string, unknown> = {}) => {
    const response = await server.send("POST", "/v1/admin/users/invites", {
      email: `Person-${++counter}@Invited.test`,
      role: "member",
      workspaces: [{ id: "default", role: "admin" }],
      ...fields
    })
    expect(response.status).toBe(201)
    return jsonOf(response) as Promise<{ id: string; invite_link: string; inviteLink: string; expires_at: string }>
  }
  const tokenOf = (link: string) => new URL(link).hash.slice(1)
  const accept = (token: string, name?: string) =>
    server.runtime.runPromiseExit(
      Invites.use((invites) => invites.accept({ token, ...(name === undefined ? {} : { name }) })).pipe(
        Effect.provideService(Clock.Clock, clock.clock)
      )
    )
  const read = async (id: string) => jsonOf(await server.request(`/v1/admin/users/invites/${id}`))

  it("creates an invitation with a single-use link on the console, and accepting it makes the user once", async () => {
    const made = await invite()
    expect(made.invite_link).toBe(made.inviteLink)
    expect(made.invite_link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/console\/invite#[A-Za-z0-9_-]{43}$/)
    const pending = await read(made.id)
    expect(pending).toMatchObject({
      object: "invite",
      email: `person-${counter}@invited.test`,
      role: "member",
      status: "pending",
      accepted_at: null,
      workspaces: [{ workspace_id: server.workspaceId, role: "manager" }]
    })
    expect(JSON.stringify(pending)).not.toContain(tokenOf(made.invite_link))

    const exit = await accept(tokenOf(made.invite_link), "Ada Lovelace")
    expect(Exit.isSuccess(exit)).toBe(true)
    const { user } = Exit.isSuccess(exit) ? exit.value : { user: undefined }
    expect(user).toMatchObject({ email: pending.email, name: "Ada Lovelace", role: "member" })
    const member = await jsonOf(await server.request(`/v1/admin/workspaces/${server.workspaceId}/users/${user!.id}`))
    expect(member).toMatchObject({ role: "manager", email: pending.email })
    expect(await read(made.id)).toMatchObject({ status: "accepted", accepted_user_id: user!.id })

    // Single use: the same link again is refused, and makes nobody.
    const again = await accept(tokenOf(made.invite_link))
    expect(Exit.isFailure(again) && JSON.stringify(again.cause)).toContain("NotFound")
    const listed = await jsonOf(await server.request(`/v1/admin/users/invites?email=${pending.email}`))
    expect(listed.data.map((i: { id: string }) => i.id)).toEqual([made.id])
    // Resending or revoking an accepted invitation is a conflict.
    expect((await server.send("POST", `/v1/admin/users/invites/${made.id}/resend`, undefined)).status).toBe(409)
    expect((await server.request(`/v1/admin/users/invites/${made.id}`, { method: "DELETE" })).status).toBe(409)
  })

  it("accepts one of two racing acceptances of one link", async () => {
    const made = await invite()
    const token = tokenOf(made.invite_link)
    const exits = await Promise.all([accept(token), accept(token), accept(token)])
    expect(exits.filter(Exit.isSuccess)).toHaveLength(1)
  })

  it("resends with a new link (the old one stops), revokes, and expires", async () => {
    const made = await invite({ role: "admin", workspaces: [] })
    const resent = await jsonOf(await server.send("POST", `/v1/admin/users/invites/${made.id}/resend`, undefined))
    expect(resent.inviteLink).not.toBe(made.invite_link)
    expect(Exit.isFailure(await accept(tokenOf(made.invite_link)))).toBe(true)
    const admin = await accept(tokenOf(resent.inviteLink))
    expect(Exit.isSuccess(admin) && admin.value.user.role).toBe("admin")

    const revoked = await invite()
    const deleted = await server.request(`/v1/admin/users/invites/${revoked.id}`, { method: "DELETE" })
    expect(await jsonOf(deleted)).toEqual({ id: revoked.id, object: "invite", deleted: true })
    expect(await read(revoked.id)).toMatchObject({ status: "cancelled" })
    expect(Exit.isFailure(await accept(tokenOf(revoked.invite_link)))).toBe(true)

    const expiring = await invite()
    clock.advance(7 * DAY_MS + 1_000)
    expect(await read(expiring.id)).toMatchObject({ status: "expired" })
    const expired = await jsonOf(await server.request("/v1/admin/users/invites?status=expired&pageSize=100"))
    expect(expired.data.map((i: { id: string }) => i.id)).toContain(expiring.id)
    expect(Exit.isFailure(await accept(tokenOf(expiring.invite_link)))).toBe(true)
    // An expired invitation can be resent: a new link with a new expiry, which works.
    const renewed = await jsonOf(await server.send("POST", `/v1/admin/users/invites/${expiring.id}/resend`, undefined))
    expect(Exit.isSuccess(await accept(tokenOf(renewed.invite_link)))).toBe(true)
  })

  /** The link's own endpoints: what a browser on the link's page calls, with no key. */
  const preview = (token: string) => server.request(`/v1/auth/invite?token=${encodeURIComponent(token)}`, { key: null })
  const acceptWithPassword = (body: Record<string, unknown>) =>
    server.request("/v1/auth/invite", {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    })
  const PASSWORD = "a long enough password"
  const usersNamed = async (email: string) =>
    Option.toArray(
      await server.runtime.runPromise(UserStore.use((users) => users.findByEmail(server.organisationId, email)))
    ).length

  it("shows a link's invitation without a key, and accepting it with a password signs the person in", async () => {
    const made = await invite()
    const token = tokenOf(made.invite_link)
    const shown = await preview(token)
    expect(shown.status).toBe(200)
    const body = await jsonOf(shown)
    expect(body).toEqual({
      object: "invite",
      id: made.id,
      email: `person-${counter}@invited.test`,
      role: "member",
      expires_at: made.expires_at,
      organisation: { id: server.organisationId, name: "Test Org" },
      workspaces: [{ id: server.workspaceId, slug: "default", name: expect.any(String), role: "manager" }]
    })
    expect(JSON.stringify(body)).not.toContain(token)

    // A password too short is refused in the envelope, and makes nobody; the link still works.
    const short = await acceptWithPassword({ token, password: "short" })
    expect(short.status).toBe(400)
    expect((await errorOf(short)).param).toBe("password")
    expect(await usersNamed(body.email)).toBe(0)

    const accepted = await acceptWithPassword({ token, password: PASSWORD, name: "Grace Hopper" })
    expect(accepted.status).toBe(200)
    const signedIn = await jsonOf(accepted)
    expect(signedIn).toMatchObject({
      object: "session",
      user: { email: body.email, name: "Grace Hopper", role: "member" },
      session: { method: "invitation" }
    })
    const cookie = accepted.headers.get("set-cookie")!.split(";")[0]!
    const me = await jsonOf(await server.request("/v1/me", { key: null, headers: { cookie } }))
    expect(me).toMatchObject({
      type: "user",
      user: { email: body.email, role: "member" },
      workspaces: [{ id: server.workspaceId, role: "manager" }]
    })
    // The password is the account's: it signs in again.
    const again = await server.request("/v1/auth/password", {
      method: "POST",
      key: null,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: body.email, password: PASSWORD })
    })
    expect(again.status).toBe(200)
    const { records } = await jsonOf(
      await server.request(`/v1/audit-logs?action=accept&user_email=${encodeURIComponent(body.email)}`)
    )
    expect(records).toHaveLength(1)
    const [record] = records
    expect(record).toMatchObject({
      resource_type: "invite",
      resource_id: made.id,
      user_email: body.email,
      session_id: signedIn.session.id
    })
    expect(JSON.stringify(record)).not.toContain(PASSWORD)
    expect(JSON.stringify(record)).not.toContain(token)

    // Single use: the link is spent; it shows nothing and accepts nothing.
    expect((await preview(token)).status).toBe(404)
    const twice = await acceptWithPassword({ token, password: PASSWORD })
    expect(twice.status).toBe(404)
    expect((await errorOf(twice)).message).toMatch(/unknown, used, revoked or expired/)
    expect(await usersNamed(body.email)).toBe(1)
  })

  it("refuses a revoked, an expired and an unknown link alike, making nobody", async () => {
    const revoked = await invite()
    expect((await server.request(`/v1/admin/users/invites/${revoked.id}`, { method: "DELETE" })).status).toBe(200)
    const expiring = await invite()
    clock.advance(7 * DAY_MS + 1_000)
    for (const token of [tokenOf(revoked.invite_link), tokenOf(expiring.invite_link), "not-a-link-at-all"]) {
      expect((await preview(token)).status).toBe(404)
      const refused = await acceptWithPassword({ token, password: PASSWORD })
      expect(refused.status).toBe(404)
      expect((await errorOf(refused)).message).toMatch(/unknown, used, revoked or expired/)
      expect(refused.headers.get("set-cookie")).toBeNull()
    }
    expect(await usersNamed(`person-${counter - 1}@invited.test`)).toBe(0)
    expect(await usersNamed(`person-${counter}@invited.test`)).toBe(0)
  })

  it("refuses bad input, Portkey's key details, unknown workspaces and keys that may not create users", async () => {
    const bad = await server.send("POST", "/v1/admin/users/invites", { email: "nope", role: "member", workspaces: [] })
    expect(bad.status).toBe(400)
    expect((await errorOf(bad)).param).toBe("email")
    const details = await server.send("POST", "/v1/admin/users/invites", {
      email: "k@invited.test",
      role: "member",
      workspaces: [],
      workspace_api_key_details: { scopes: ["logs.list"] }
    })
    expect(details.status).toBe(400)
    expect((await errorOf(details)).param).toBe("workspace_api_key_details")
    const owner = await server.send("POST", "/v1/admin/users/invites", {
      email: "o@x.test",
      role: "owner",
      workspaces: []
    })
    expect(owner.status).toBe(400)
    const unknown = await server.send("POST", "/v1/admin/users/invites", {
      email: "u@invited.test",
      role: "member",
      workspaces: [{ id: "no-such-workspace", role: "member" }]
    })
    expect(unknown.status).toBe(404)
    const key = await jsonOf(
      await server.send("POST", "/v1/api-keys/workspace/service", {
        name: "weak",
        scopes: ["prompts.read"],
        workspace_id: server.workspaceId
      })
    )
    const refused = await server.send("POST", "/v1/admin/users/invites", {
      email: "w@invited.test",
      role: "member",
      workspaces: []
    }, key.key)
    expect([403, 404]).toContain(refused.status)
    const none = await jsonOf(await server.request("/v1/admin/users/invites?email=w@invited.test"))
    expect(none.total).toBe(0)
  })
})

describe("invitation links with PUBLIC_URL", () => {
  it("are made on the public URL, not on the Host the admin called", async () => {
    const server = await startTestServer({
      providers: { ...openAiProviderAt(), signIn: { publicUrl: "https://gateway.example.com", operatorProvider: null } }
    })
    try {
      const made = await server.send("POST", "/v1/admin/users/invites", {
        email: "public@invited.test",
        role: "member",
        workspaces: []
      })
      expect((await jsonOf(made)).invite_link).toMatch(/^https:\/\/gateway\.example\.com\/console\/invite#[\w-]{43}$/)
    } finally {
      await server.close()
    }
  })
})
