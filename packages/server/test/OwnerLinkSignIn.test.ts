/**
 * The first start's owner link accepted by single sign-on: `gateway-control serve` on an empty store, with an
 * identity provider configured by environment (`OIDC_*`, a real `oidc-provider` on 127.0.0.1, invitation only),
 * prints `set your password: …/console/invite#<token>`; that token, carried to `/auth/oidc/{provider}/start
 * ?invite=…`, signs the owner in through the provider. A person whose email the provider has not verified is
 * refused and the link stays usable; a verified person takes the owner account (its email becomes the one the
 * provider vouches for, no other user is made), and the link is then spent, for SSO and password alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { followProvider, type OidcTestProvider, startOidcProvider } from "./support/OidcProvider.ts"
import { freePort, type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const CLIENT = { client_id: "gateway-owner", client_secret: "owner-link-client-secret-0123456789" }

let provider: OidcTestProvider
let server: ServerProcess
let redirectUri: string

beforeAll(async () => {
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  redirectUri = `${publicUrl}/auth/oidc/callback`
  provider = await startOidcProvider([CLIENT], redirectUri, {
    rita: { email: "rita@example.test", email_verified: true, name: "Rita Root", groups: [] },
    mallory: { email: "mallory@example.test", email_verified: false, name: "Mallory", groups: [] }
  })
  server = await startServerProcess({
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: CLIENT.client_id,
    OIDC_CLIENT_SECRET: CLIENT.client_secret,
    // Invitation only: the provider makes nobody a user by their domain.
    OIDC_ALLOWED_DOMAINS: ""
  })
}, 120_000)

afterAll(async () => {
  server?.child.kill("SIGTERM")
  await server?.exited
  await provider?.close()
})

const admin = async (path: string) => {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { "x-service-api-key": server.adminKey! } })
  expect(response.status).toBe(200)
  return response.json() as Promise<Record<string, unknown>>
}

interface Listed {
  readonly data: ReadonlyArray<{ readonly id: string; readonly email: string; readonly role: string }>
}

/** The start URL of the one identity provider, as the sign-in page is told it. */
const startUrl = async () => {
  const listed = (await (await fetch(`${server.baseUrl}/v1/auth/providers`)).json()) as {
    data: ReadonlyArray<{ readonly start_url: string }>
  }
  expect(listed.data).toHaveLength(1)
  return new URL(listed.data[0]!.start_url, server.baseUrl).href
}

/** A browser following the flow the link starts: to the provider as `account`, and back to the callback. */
const signInThroughProvider = async (account: string, token: string) => {
  provider.signInAs(account)
  const start = await fetch(`${await startUrl()}?invite=${encodeURIComponent(token)}`, { redirect: "manual" })
  expect(start.status).toBe(302)
  const url = new URL(start.headers.get("location")!)
  const search = await followProvider(url.href, redirectUri)
  return fetch(`${server.baseUrl}/auth/oidc/callback${search}`, {
    redirect: "manual",
    headers: { cookie: `gwc_oidc_flow=${url.searchParams.get("state")}` }
  })
}

const preview = (token: string) => fetch(`${server.baseUrl}/v1/auth/invite?token=${encodeURIComponent(token)}`)

describe("the first start's owner link, accepted by single sign-on", () => {
  it("signs the owner in through the provider with a verified email, and is then spent", async () => {
    const stderr = server.stderr()
    expect(stderr).toContain("(it also offers the identity provider)")
    const link = /set your password: (\S+)/.exec(stderr)?.[1]
    expect(link).toMatch(/\/console\/invite#/)
    const token = new URL(link!).hash.slice(1)
    const before = (await admin("/v1/users")) as unknown as Listed
    const owner = before.data.find((u) => u.role === "owner")
    expect(owner).toMatchObject({ email: "owner@localhost" })

    // An email the provider has not verified takes nothing: refused, and the link still works.
    const refused = await signInThroughProvider("mallory", token)
    expect(refused.status).toBe(401)
    expect(refused.headers.getSetCookie().some((c) => c.startsWith("gwc_session="))).toBe(false)
    expect((await preview(token)).status).toBe(200)

    const accepted = await signInThroughProvider("rita", token)
    expect(accepted.status).toBe(302)
    const session = accepted.headers.getSetCookie().find((c) => c.startsWith("gwc_session="))
    expect(session).toBeDefined()
    const me = await (await fetch(`${server.baseUrl}/v1/me`, { headers: { cookie: session!.split(";")[0]! } })).json()
    // The owner account, now under the email the provider vouches for; nobody else was made.
    expect(me).toMatchObject({
      type: "user",
      user: { id: owner!.id, email: "rita@example.test", name: "Rita Root", role: "owner" }
    })
    const after = (await admin("/v1/users")) as unknown as Listed
    expect(after.data.map((u) => u.id).sort()).toEqual(before.data.map((u) => u.id).sort())
    expect(after.data.find((u) => u.id === owner!.id)).toMatchObject({ email: "rita@example.test", role: "owner" })
    // The invitation is accepted, and the owner signed in by single sign-on is recorded as such.
    const invites = (await admin("/v1/admin/users/invites")) as {
      data: ReadonlyArray<{ readonly status: string; readonly email: string }>
    }
    expect(invites.data.map((i) => i.status)).toEqual(["accepted"])
    const records = (await admin("/v1/audit-logs?action=sign_in&response_status_code=200")) as {
      records: ReadonlyArray<{ readonly user_email: string; readonly request_body: unknown }>
    }
    expect(records.records[0]).toMatchObject({ user_email: "rita@example.test" })

    // Spent: the link starts no sign-in, shows nothing, and sets no password.
    const again = await fetch(`${await startUrl()}?invite=${encodeURIComponent(token)}`, { redirect: "manual" })
    expect(again.status).toBe(401)
    expect(await again.text()).toMatch(/unknown, used, revoked or expired/)
    expect((await preview(token)).status).toBe(404)
    const password = await fetch(`${server.baseUrl}/v1/auth/invite`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token, password: "a long enough password for anyone" })
    })
    expect(password.status).toBe(404)
    // The owner signs in again through the provider without the link: matched by the email it now has.
    provider.signInAs("rita")
    const start = await fetch(await startUrl(), { redirect: "manual" })
    const url = new URL(start.headers.get("location")!)
    const search = await followProvider(url.href, redirectUri)
    const next = await fetch(`${server.baseUrl}/auth/oidc/callback${search}`, {
      redirect: "manual",
      headers: { cookie: `gwc_oidc_flow=${url.searchParams.get("state")}` }
    })
    expect(next.status).toBe(302)
    const nextSession = next.headers.getSetCookie().find((c) => c.startsWith("gwc_session="))!.split(";")[0]!
    const nextMe = await (await fetch(`${server.baseUrl}/v1/me`, { headers: { cookie: nextSession } })).json()
    expect(nextMe).toMatchObject({ user: { id: owner!.id, role: "owner" } })
  }, 120_000)
})
