/**
 * Signing in with a real OpenID provider (`oidc-provider` on 127.0.0.1): the authorization code flow with PKCE,
 * state and nonce end to end, just-in-time users by allowed domain, the role map applied at every sign-in, and
 * each refusal (wrong state, wrong nonce, a code for another client, an expired ID token, an unverified email,
 * a replayed callback, a domain not allowed) changing nothing and recorded as a failed sign-in.
 */
import {
  AuditLogStore,
  IdentityProviders,
  type OperatorIdentityProvider,
  SignInFlow,
  SignInFlowStore,
  UserStore,
  WorkspaceMemberStore
} from "@gateway-control/domain"
import { Effect, type Layer, Option, Redacted } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { followProvider, type OidcTestProvider, startOidcProvider } from "./support/OidcProvider.ts"
import { jsonOf, startTestServer, type TestLayer, type TestServer } from "./support/TestServer.ts"

const PUBLIC_URL = "http://gateway.test"
const REDIRECT_URI = `${PUBLIC_URL}/auth/oidc/callback`
const CLIENT = { client_id: "gateway", client_secret: "gateway-client-secret-0123456789" }
const OTHER_CLIENT = { client_id: "another-app", client_secret: "another-app-secret-0123456789" }

const ROLE_MAP = {
  "gateway-admins": { organisation_role: "admin" },
  "team-leads": { workspaces: { default: "manager" } },
  staff: { workspaces: { default: "member" } }
} as const

let provider: OidcTestProvider
let server: TestServer

const run = <A, E>(effect: Effect.Effect<A, E, Layer.Success<TestLayer>>): Promise<A> =>
  server.runtime.runPromise(effect)

const usersOf = () => run(UserStore.use((users) => users.list(server.organisationId, { offset: 0, limit: 100 })))

const userByEmail = (email: string) => run(UserStore.use((users) => users.findByEmail(server.organisationId, email)))

const signInRecords = (organisationId: string | null) =>
  run(
    AuditLogStore.use((log) => log.list(organisationId, { action: "sign_in" }, { offset: 0, limit: 100 }))
  ).then((page) => page.items)

/** Starts a sign-in at the gateway and follows the provider to the callback's query. */
const authorize = async (slug = "oidc", rewrite?: (url: URL) => void, invite?: string) => {
  const query = invite === undefined ? "" : `?invite=${encodeURIComponent(invite)}`
  const start = await fetch(`${server.baseUrl}/auth/oidc/${slug}/start${query}`, { redirect: "manual" })
  expect(start.status).toBe(302)
  const url = new URL(start.headers.get("location")!)
  // The browser keeps the flow's state in a cookie of its own, for the callback.
  expect(start.headers.get("set-cookie")).toBe(
    `gwc_oidc_flow=${url.searchParams.get("state")}; Max-Age=600; Path=/; HttpOnly; SameSite=Lax`
  )
  rewrite?.(url)
  return { url, search: await followProvider(url.href, REDIRECT_URI) }
}

/**
 * The callback from a browser: by default the one that started the flow (its flow cookie holds the callback's
 * `state`); `flowState` null sends no flow cookie, a string sends that one.
 */
const callback = (search: string, flowState?: string | null) => {
  const kept = flowState === undefined ? new URLSearchParams(search).get("state") : flowState
  return fetch(`${server.baseUrl}/auth/oidc/callback${search}`, {
    redirect: "manual",
    headers: kept === null ? {} : { cookie: `gwc_oidc_flow=${kept}` }
  })
}

/** What clears the flow's cookie once the callback has used it. */
const SPENT_FLOW_COOKIE =
  "gwc_oidc_flow=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax"

/** The session cookie a response sets, as a `cookie` request header (`name=value`). */
const sessionCookieOf = (response: Response) => {
  const cookies = response.headers.getSetCookie()
  // The spent flow's cookie is cleared beside it.
  expect(cookies.filter((c) => c.startsWith("gwc_oidc_flow="))).toEqual([SPENT_FLOW_COOKIE])
  const set = cookies.find((c) => c.startsWith("gwc_session="))
  expect(set).toMatch(/^gwc_session=[\w-]{20,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/)
  return set!.split(";")[0]!
}

/** Who the session cookie says the caller is. */
const me = async (cookie: string) => {
  const response = await fetch(`${server.baseUrl}/v1/me`, { headers: { cookie } })
  expect(response.status).toBe(200)
  return jsonOf(response)
}

/** A refused callback: a readable page, no user created, one failed sign-in recorded. */
const expectRefused = async (response: Response, words: RegExp) => {
  expect(response.status).toBe(401)
  // No session; only the spent flow's cookie is cleared.
  expect(response.headers.getSetCookie()).toEqual([SPENT_FLOW_COOKIE])
  expect(response.headers.get("content-type")).toMatch(/text\/html/)
  const page = await response.text()
  expect(page).toContain("Sign-in refused")
  const message = page.match(/<p>(.*?)<\/p>/)?.[1]?.replaceAll("&quot;", "\"").replaceAll("&#39;", "'")
  expect(message).toMatch(words)
  expect(page).not.toContain(CLIENT.client_secret)
}

beforeAll(async () => {
  provider = await startOidcProvider([CLIENT, OTHER_CLIENT], REDIRECT_URI, {
    ada: {
      email: "ada@allowed.test",
      email_verified: true,
      name: "Ada Lovelace",
      groups: ["gateway-admins", "team-leads"]
    },
    bob: { email: "bob@allowed.test", email_verified: true, name: "Bob", groups: ["staff"] },
    eve: { email: "eve@allowed.test", email_verified: false, name: "Eve", groups: ["gateway-admins"] },
    zed: { email: "zed@elsewhere.test", email_verified: true, name: "Zed", groups: [] },
    ivy: { email: "ivy@invited.test", email_verified: true, name: "Ivy", groups: ["team-leads"] },
    max: { email: "max@invited.test", email_verified: true, name: "Max", groups: [] }
  })
  const operatorProvider: OperatorIdentityProvider = {
    issuer: provider.issuer,
    clientId: CLIENT.client_id,
    clientSecret: Redacted.make(CLIENT.client_secret),
    groupsClaim: "groups",
    roleMap: ROLE_MAP,
    allowedDomains: ["allowed.test"]
  }
  server = await startTestServer({
    providers: {
      registry: providerRegistry({ providerBaseUrls: [], upstreamTimeoutMs: 30_000, trustedCustomHosts: [] }),
      masterKey: new Uint8Array(randomBytes(32)),
      signIn: { publicUrl: PUBLIC_URL, operatorProvider }
    }
  })
}, 60_000)

afterAll(async () => {
  await server?.close()
  await provider?.close()
})

describe("OpenID Connect sign-in", () => {
  it("lists the enabled providers publicly, with their start URL", async () => {
    const response = await fetch(`${server.baseUrl}/v1/auth/providers`)
    expect(response.status).toBe(200)
    const body = await jsonOf(response)
    expect(body.data).toEqual([
      { slug: "oidc", name: new URL(provider.issuer).host, start_url: `${PUBLIC_URL}/auth/oidc/oidc/start` }
    ])
  })

  it("sends the browser to the provider with PKCE (S256), state and nonce", async () => {
    const start = await fetch(`${server.baseUrl}/auth/oidc/oidc/start`, { redirect: "manual" })
    expect(start.status).toBe(302)
    const url = new URL(start.headers.get("location")!)
    expect(url.origin).toBe(provider.issuer)
    expect(url.searchParams.get("client_id")).toBe(CLIENT.client_id)
    expect(url.searchParams.get("redirect_uri")).toBe(REDIRECT_URI)
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/)
    expect(url.searchParams.get("state")).toMatch(/^[\w-]{20,}$/)
    expect(url.searchParams.get("nonce")).toMatch(/^[\w-]{20,}$/)
  })

  it("refuses an unknown provider with a page", async () => {
    const response = await fetch(`${server.baseUrl}/auth/oidc/nobody/start`, { redirect: "manual" })
    expect(response.status).toBe(404)
    expect(await response.text()).toContain("no such identity provider")
  })

  it("creates a person of an allowed domain at first sign-in, with the mapped roles, and audits who it was", async () => {
    provider.signInAs("ada")
    const { search } = await authorize()
    const response = await callback(search)
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe("/console/")
    const ada = Option.getOrThrow(await userByEmail("ada@allowed.test"))
    expect(ada.role).toBe("admin")
    // The callback opened Ada's session: its cookie signs her requests in as herself.
    const whoAmI = await me(sessionCookieOf(response))
    expect(whoAmI).toMatchObject({
      type: "user",
      user: { id: ada.id, email: "ada@allowed.test", name: "Ada Lovelace", role: "admin" },
      api_key_id: null
    })
    expect(ada.name).toBe("Ada Lovelace")
    const membership = await run(
      WorkspaceMemberStore.use((members) => members.get(server.workspaceId, ada.id))
    )
    expect(Option.getOrThrow(membership).role).toBe("manager")
    const [record] = await signInRecords(server.organisationId)
    expect(record).toMatchObject({
      action: "sign_in",
      resource_type: "user",
      resource_id: ada.id,
      user_id: ada.id,
      user_type: "user",
      response_status_code: 200,
      user_email: "ada@allowed.test",
      session_id: whoAmI.session_id,
      identity_provider: "oidc",
      identity_subject: "ada"
    })
    expect(record!.request_body).toMatchObject({
      identity_provider: "oidc",
      email: "ada@allowed.test",
      subject: "ada",
      created: true,
      role_changes: [{ workspace: null, from: null, to: "admin" }, { workspace: "default", from: null, to: "manager" }]
    })
  })

  it("applies a group change at the provider at the next sign-in, and audits the role change", async () => {
    provider.signInAs("ada")
    const before = await me(sessionCookieOf(await callback((await authorize()).search)))
    provider.accounts.set("ada", { ...provider.accounts.get("ada")!, groups: ["staff"] })
    const response = await callback((await authorize()).search)
    expect(response.status).toBe(302)
    // Every sign-in opens a new session, with a new id and token (no fixation); it acts with the new role.
    const after = await me(sessionCookieOf(response))
    expect(after.session_id).not.toBe(before.session_id)
    expect(after.user.role).toBe("member")
    expect(after.workspaces).toEqual([expect.objectContaining({ id: server.workspaceId, role: "member" })])
    const ada = Option.getOrThrow(await userByEmail("ada@allowed.test"))
    expect(ada.role).toBe("member")
    const membership = await run(
      WorkspaceMemberStore.use((members) => members.get(server.workspaceId, ada.id))
    )
    expect(Option.getOrThrow(membership).role).toBe("member")
    const [latest] = await signInRecords(server.organisationId)
    expect(latest!.request_body).toMatchObject({
      email: "ada@allowed.test",
      created: false,
      role_changes: [{ workspace: null, from: "admin", to: "member" }, {
        workspace: "default",
        from: "manager",
        to: "member"
      }]
    })
  })

  it("refuses a callback whose state it never issued: nothing created, a failed sign-in recorded", async () => {
    const before = (await usersOf()).total
    const response = await callback("?code=anything&state=not-a-state-we-issued")
    await expectRefused(response, /unknown, already used or expired/)
    expect((await usersOf()).total).toBe(before)
    const [record] = await signInRecords(null)
    expect(record).toMatchObject({ action: "sign_in", response_status_code: 401, user_type: "unauthenticated" })
  })

  it("refuses a callback made in another browser than the one that started the flow (login CSRF), which keeps it", async () => {
    provider.signInAs("bob")
    const { search } = await authorize()
    const before = (await usersOf()).total
    const recorded = (await signInRecords(null)).length
    // Someone hands their own callback link to another person: that browser holds no flow, or another one.
    await expectRefused(await callback(search, null), /not started in this browser/)
    await expectRefused(await callback(search, "a-state-of-another-flow"), /not started in this browser/)
    expect((await usersOf()).total).toBe(before)
    expect((await signInRecords(null)).length).toBe(recorded + 2)
    // The flow was not spent: the browser that started it still completes it.
    expect((await callback(search)).status).toBe(302)
  })

  it("refuses a replayed callback (its state and code are spent)", async () => {
    provider.signInAs("bob")
    const { search } = await authorize()
    expect((await callback(search)).status).toBe(302)
    const before = (await usersOf()).total
    await expectRefused(await callback(search), /unknown, already used or expired/)
    expect((await usersOf()).total).toBe(before)
  })

  it("refuses an ID token whose nonce is not the one this sign-in sent", async () => {
    provider.signInAs("zed")
    const { search, url } = await authorize()
    // The flow kept server-side for this state now expects another nonce.
    const digest = createHash("sha256").update(url.searchParams.get("state")!).digest("hex")
    await run(Effect.gen(function*() {
      const flows = yield* SignInFlowStore
      const flow = Option.getOrThrow(yield* flows.take(digest, new Date().toISOString()))
      yield* flows.insert(
        new SignInFlow({ ...flow, nonce: "a-nonce-this-provider-never-saw" }),
        new Date().toISOString()
      )
    }))
    const before = (await usersOf()).total
    await expectRefused(await callback(search), /"nonce"/)
    expect((await usersOf()).total).toBe(before)
    const [record] = await signInRecords(server.organisationId)
    expect(record).toMatchObject({ response_status_code: 401, request_body: { identity_provider: "oidc" } })
  })

  it("refuses a code issued to another client (a token for another audience)", async () => {
    provider.signInAs("bob")
    const { search } = await authorize("oidc", (url) => url.searchParams.set("client_id", OTHER_CLIENT.client_id))
    const before = (await usersOf()).total
    await expectRefused(await callback(search), /refused/)
    expect((await usersOf()).total).toBe(before)
  })

  it("refuses an expired ID token", async () => {
    provider.signInAs("zed")
    const { search } = await authorize()
    provider.expireNextIdToken()
    const before = (await usersOf()).total
    await expectRefused(await callback(search), /"exp"/)
    expect((await usersOf()).total).toBe(before)
  })

  it("refuses an email the provider has not verified", async () => {
    provider.signInAs("eve")
    const before = (await usersOf()).total
    await expectRefused(await callback((await authorize()).search), /not verified/)
    expect((await usersOf()).total).toBe(before)
    expect(Option.isNone(await userByEmail("eve@allowed.test"))).toBe(true)
  })

  it("refuses a person of a domain it does not create users for (invitation only)", async () => {
    provider.signInAs("zed")
    const before = (await usersOf()).total
    await expectRefused(await callback((await authorize()).search), /invitation/)
    expect((await usersOf()).total).toBe(before)
  })

  it("matches an existing user by verified email without creating another", async () => {
    const created = await server.send("POST", "/v1/users", { email: "zed@elsewhere.test", role: "member" })
    expect(created.status).toBe(201)
    provider.signInAs("zed")
    const before = (await usersOf()).total
    expect((await callback((await authorize()).search)).status).toBe(302)
    expect((await usersOf()).total).toBe(before)
  })
})

describe("accepting an invitation by single sign-on", () => {
  /** An invitation's link token, for an email of a domain the provider creates nobody for (invitation only). */
  const invite = async (email: string) => {
    const made = await server.send("POST", "/v1/admin/users/invites", {
      email,
      role: "member",
      workspaces: [{ id: "default", role: "admin" }]
    })
    expect(made.status).toBe(201)
    const body = await jsonOf(made)
    return { id: body.id as string, token: new URL(body.invite_link).hash.slice(1) }
  }
  /** A start refused: the page says why, and no flow is kept in the browser. */
  const expectStartRefused = async (token: string) => {
    const response = await fetch(`${server.baseUrl}/auth/oidc/oidc/start?invite=${token}`, { redirect: "manual" })
    expect(response.status).toBe(401)
    expect(response.headers.getSetCookie()).toEqual([])
    expect(await response.text()).toMatch(/unknown, used, revoked or expired/)
  }
  const inviteStatus = async (id: string) =>
    (await jsonOf(await server.request(`/v1/admin/users/invites/${id}`))).status

  it("signs the invited person in through the provider, makes their user from the invitation, and spends it", async () => {
    const { id, token } = await invite("ivy@invited.test")
    provider.signInAs("ivy")
    const response = await callback((await authorize("oidc", undefined, token)).search)
    expect(response.status).toBe(302)
    const whoAmI = await me(sessionCookieOf(response))
    expect(whoAmI).toMatchObject({
      type: "user",
      user: { email: "ivy@invited.test", name: "Ivy", role: "member" },
      workspaces: [{ id: server.workspaceId, role: "manager" }]
    })
    expect(await inviteStatus(id)).toBe("accepted")
    const [record] = await signInRecords(server.organisationId)
    expect(record).toMatchObject({
      response_status_code: 200,
      user_email: "ivy@invited.test",
      session_id: whoAmI.session_id
    })
    expect(record!.request_body).toMatchObject({
      identity_provider: "oidc",
      subject: "ivy",
      created: true,
      invite_id: id
    })

    // Single use: the spent link starts no other sign-in.
    await expectStartRefused(token)
  })

  it("refuses a person the provider vouches for under another email: nothing made, the invitation still pending", async () => {
    const { id, token } = await invite("someone-else@invited.test")
    provider.signInAs("max")
    const before = (await usersOf()).total
    await expectRefused(await callback((await authorize("oidc", undefined, token)).search), /invitation is for/)
    expect((await usersOf()).total).toBe(before)
    expect(await inviteStatus(id)).toBe("pending")
  })

  it("refuses a revoked invitation, at the start and at a callback already under way", async () => {
    const { id, token } = await invite("max@invited.test")
    provider.signInAs("max")
    const underWay = await authorize("oidc", undefined, token)
    expect((await server.request(`/v1/admin/users/invites/${id}`, { method: "DELETE" })).status).toBe(200)
    const before = (await usersOf()).total
    await expectRefused(await callback(underWay.search), /unknown, used, revoked or expired/)
    expect((await usersOf()).total).toBe(before)
    await expectStartRefused(token)
  })
})

describe("identity providers through the API", () => {
  it("creates, lists, reads, changes and deletes a provider; the secret is never answered", async () => {
    const created = await server.send("POST", "/v1/admin/identity-providers", {
      name: "Corporate SSO",
      issuer: provider.issuer,
      client_id: OTHER_CLIENT.client_id,
      client_secret: OTHER_CLIENT.client_secret,
      role_map: { staff: { organisation_role: "member" } },
      allowed_domains: ["@Allowed.Test"]
    })
    expect(created.status).toBe(201)
    const body = await jsonOf(created)
    expect(body).toMatchObject({
      object: "identity-provider",
      slug: "corporate-sso",
      groups_claim: "groups",
      allowed_domains: ["allowed.test"],
      enabled: true,
      source: "api",
      client_secret_hint: "****6789"
    })
    expect(JSON.stringify(body)).not.toContain(OTHER_CLIENT.client_secret)
    const options = await jsonOf(await fetch(`${server.baseUrl}/v1/auth/providers`))
    expect(options.data.map((o: { slug: string }) => o.slug)).toEqual(["oidc", "corporate-sso"])
    const listed = await jsonOf(await server.request("/v1/admin/identity-providers"))
    expect(listed.data.map((p: { id: string }) => p.id)).toEqual([body.id])
    const changed = await server.send("PUT", `/v1/admin/identity-providers/${body.id}`, { enabled: false })
    expect((await jsonOf(changed)).enabled).toBe(false)
    const secret = await run(IdentityProviders.use((p) => p.resolveId(body.id)))
    expect(Redacted.value(Option.getOrThrow(secret).clientSecret)).toBe(OTHER_CLIENT.client_secret)
    const records = await run(
      AuditLogStore.use((log) =>
        log.list(server.organisationId, { resourceType: "identity_provider" }, { offset: 0, limit: 10 })
      )
    )
    expect(JSON.stringify(records.items)).not.toContain(OTHER_CLIENT.client_secret)
    expect((await server.send("DELETE", `/v1/admin/identity-providers/${body.id}`, undefined)).status).toBe(200)
    expect((await server.request(`/v1/admin/identity-providers/${body.id}`)).status).toBe(404)
  })

  it("refuses bad input with the envelope, and a map that makes owners to an admin who is not an owner", async () => {
    const bad = await server.send("POST", "/v1/admin/identity-providers", {
      name: "Bad",
      issuer: "ftp://example.com",
      client_id: "x",
      client_secret: "y"
    })
    expect(bad.status).toBe(400)
    expect((await jsonOf(bad)).error.param).toBe("issuer")
    const reserved = await server.send("POST", "/v1/admin/identity-providers", {
      name: "Clash",
      slug: "oidc",
      issuer: provider.issuer,
      client_id: "x",
      client_secret: "y"
    })
    expect(reserved.status).toBe(409)
    // An admin (not an owner) with an admin key.
    const admin = await server.send("POST", "/v1/users", { email: "second-admin@example.com", role: "admin" })
    const adminId = (await jsonOf(admin)).id
    const key = await server.send("POST", "/v1/api-keys/organisation/service", {
      name: "admin's key",
      user_id: adminId,
      scopes: ["organisation_users.create", "organisation_users.read", "organisation_users.update"]
    })
    const adminKey = (await jsonOf(key)).key
    const owners = await server.send("POST", "/v1/admin/identity-providers", {
      name: "Owners",
      issuer: provider.issuer,
      client_id: "x",
      client_secret: "y",
      role_map: { root: { organisation_role: "owner" } }
    }, adminKey)
    expect(owners.status).toBe(403)
  })
})
