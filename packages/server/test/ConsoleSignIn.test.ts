/**
 * People signing in to the console in headless Chromium, against `gateway-control serve` on 127.0.0.1 with a
 * real OpenID provider beside it (`oidc-provider`, support/OidcProvider.ts), configured the operator's way
 * (`OIDC_*`, `OIDC_ROLE_MAP`, `PUBLIC_URL`): a person signs in with "Sign in with …", the header names them, as a
 * member they are offered only what the policy lets a member do and refused the rest, a change of their groups
 * at the provider changes their role at their next sign-in, and the audit log shows their email on their
 * changes. A local account signs in through the email and password form, and a person ends their sessions.
 * Every request stays on 127.0.0.1 (the server and the provider), and the page logs no error.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect } from "vitest"
import {
  adminApi,
  browserAvailable,
  type BrowserSession,
  browserSteps,
  openBrowser,
  stopAll
} from "./support/Browser.ts"
import { type OidcTestProvider, startOidcProvider } from "./support/OidcProvider.ts"
import { freePort, type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = browserAvailable()

const CLIENT = { client_id: "gateway-console", client_secret: "console-client-secret-0123456789abcdef" }
const ROLE_MAP = {
  "gateway-admins": { organisation_role: "admin" },
  staff: { workspaces: { default: "member" } }
}
const PASSWORD = "a long enough password for carol"

let provider: OidcTestProvider
let server: ServerProcess
let browser: BrowserSession
let page: Page
const started = performance.now()

beforeAll(async () => {
  if (!available) return
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  provider = await startOidcProvider([CLIENT], `${publicUrl}/auth/oidc/callback`, {
    bob: { email: "bob@example.test", email_verified: true, name: "Bob Builder", groups: ["staff"] }
  })
  server = await startServerProcess({
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: CLIENT.client_id,
    OIDC_CLIENT_SECRET: CLIENT.client_secret,
    OIDC_ROLE_MAP: JSON.stringify(ROLE_MAP),
    OIDC_ALLOWED_DOMAINS: "example.test"
  })
  browser = await openBrowser(server.baseUrl, [provider.issuer])
  page = browser.page
}, 120_000)

afterAll(async () => {
  if (!available) return
  await stopAll(browser, server)
  await provider?.close()
  console.info(`console sign-in tests: ${Math.round(performance.now() - started)} ms`)
})

const step = browserSteps("sign-in", () => page, 90_000)

const api = adminApi(() => server)
/** The admin key's call, which must succeed. */
const send = async (method: string, path: string, body: unknown) => {
  const answer = await api(method, path, body)
  expect(answer.status, answer.text).toBeLessThan(300)
  return answer.body as { readonly id?: string }
}

const sections = () => page.getByRole("navigation", { name: "Sections" }).getByRole("link").allInnerTexts()
const who = () => page.getByLabel("Signed in as").innerText()

/** The header's sign-out (the sessions page has buttons of its own). */
const signOutButton = () => page.getByRole("banner").getByRole("button", { name: "Sign out", exact: true })

const signInWithProvider = async () => {
  await page.getByRole("link", { name: /^Sign in with / }).click()
  await page.getByLabel("Signed in as").waitFor()
}

describe.skipIf(!available)("people signing in to the console", () => {
  step("offers the provider, the email and password form, and an API key as the second choice", async () => {
    await page.goto(`${server.baseUrl}/console`)
    const link = page.getByRole("link", { name: /^Sign in with / })
    expect(await link.innerText()).toBe(`Sign in with ${new URL(provider.issuer).host}`)
    await page.getByLabel("Email").waitFor()
    await page.getByLabel("Password", { exact: true }).waitFor()
    expect(await page.getByLabel("API key").count()).toBe(0)
    expect(await page.getByRole("button", { name: "Use an API key instead" }).count()).toBe(1)
    await browser.screenshot("people-sign-in")
  })

  step("signs a member in through the provider: the header names them, the admin pages are not offered", async () => {
    provider.signInAs("bob")
    await signInWithProvider()
    expect(await who()).toContain("Bob Builder")
    expect(await who()).toContain("bob@example.test")
    expect(await who()).toContain("member")
    const offered = await sections()
    expect(offered).toEqual(expect.arrayContaining(["Prompts", "Playground", "My sessions"]))
    for (const adminPage of ["Audit log", "SCIM", "Trust policies", "Identity providers"]) {
      expect(offered).not.toContain(adminPage)
    }
    // The cookie is HttpOnly: no script of the page can read it, and nothing is kept in storage.
    const cookie = (await browser.context.cookies(server.baseUrl)).find((c) => c.name === "gwc_session")
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" })
    // Evaluated in the page, where the DOM is (the tests' own types have none).
    expect(String(await page.evaluate("document.cookie"))).not.toContain("gwc_session")
    expect(await page.evaluate(() => Object.keys(sessionStorage))).not.toContain("gateway-control.api-key")
    await browser.screenshot("member-signed-in")
  })

  step("lets the member write a prompt, and refuses them the audit log when they go there anyway", async () => {
    await page.getByRole("link", { name: "New prompt" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Bob's prompt")
    await page.getByLabel("Message 1 content").fill("Hello {{name}}")
    await page.getByLabel("Model").fill("gpt-4o")
    await page.getByRole("button", { name: "Create prompt" }).click()
    await page.getByRole("heading", { name: "Bob's prompt" }).waitFor()

    await page.goto(`${server.baseUrl}/console/audit`)
    await page.getByLabel("Signed in as").waitFor()
    await expect.poll(() => page.getByRole("alert").allInnerTexts()).toEqual([
      expect.stringMatching(/owner or admin|admin \(organisation\) key/)
    ])
    // Nor does the API key page offer them what a manager may do.
    await page.getByRole("link", { name: "API keys" }).click()
    await page.getByRole("heading", { name: "API keys" }).waitFor()
    expect(await page.getByRole("form", { name: "New API key" }).count()).toBe(0)
  })

  step("changes their role at their next sign-in when their groups change at the provider", async () => {
    await signOutButton().click()
    await page.getByRole("link", { name: /^Sign in with / }).waitFor()
    provider.accounts.set("bob", { ...provider.accounts.get("bob")!, groups: ["staff", "gateway-admins"] })
    await signInWithProvider()
    expect(await who()).toContain("admin")
    expect(await sections()).toEqual(expect.arrayContaining(["Audit log", "Workspaces & members"]))
  })

  step("shows the person's email on their changes in the audit log", async () => {
    await page.getByRole("link", { name: "Audit log" }).click()
    const table = page.getByRole("table", { name: "Audit records" })
    const created = table.getByRole("row").filter({ hasText: "create" }).filter({ hasText: "prompt" })
    await expect.poll(() => created.first().innerText()).toContain("bob@example.test")
    await created.first().getByRole("button", { name: /Details/ }).click()
    const detail = page.getByRole("region", { name: /Record #/ })
    expect(await detail.innerText()).toContain("bob@example.test")
    expect(await detail.innerText()).toMatch(/signed in with/)
    await browser.screenshot("audit-person")
  })

  step("lets the admin add a second identity provider, offered on the sign-in page, and turn it off", async () => {
    await page.getByRole("link", { name: "Identity providers" }).click()
    const form = page.getByRole("form", { name: "New identity provider" })
    await form.getByLabel("Name", { exact: true }).fill("Staff directory")
    await form.getByLabel("Issuer URL").fill(provider.issuer)
    await form.getByLabel("Client id").fill(CLIENT.client_id)
    await form.getByLabel("Client secret (write-only)").fill(CLIENT.client_secret)
    await form.getByLabel("Role map (JSON)").fill("{\"staff\": ")
    await form.getByRole("button", { name: "Add identity provider" }).click()
    await expect.poll(() => form.getByRole("alert").allInnerTexts()).toEqual([expect.stringMatching(/role_map/)])
    await form.getByLabel("Role map (JSON)").fill(JSON.stringify({ staff: { workspaces: { default: "member" } } }))
    await form.getByRole("button", { name: "Add identity provider" }).click()
    const table = page.getByRole("table", { name: "Identity providers" })
    await expect.poll(() => table.innerText()).toContain("Staff directory")
    expect(await page.content()).not.toContain(CLIENT.client_secret)
    await browser.screenshot("identity-providers")
    const options = async () =>
      ((await (await fetch(`${server.baseUrl}/v1/auth/providers`)).json()) as {
        data: ReadonlyArray<{ readonly name: string }>
      }).data.map((p) => p.name)
    expect(await options()).toContain("Staff directory")
    await table.getByRole("button", { name: "Turn off Staff directory" }).click()
    // The row's own "Turn off" button says "off" already: wait for the provider to leave the sign-in page's list.
    await expect.poll(options).not.toContain("Staff directory")
    await expect.poll(() => table.getByRole("button", { name: "Turn on Staff directory" }).count()).toBe(1)
  })

  step("picks people by name and email when adding a member, never by id", async () => {
    const carol = await send("POST", "/v1/users", { email: "carol@example.test", name: "Carol Local", role: "member" })
    await send("PUT", "/v1/auth/password", { user_id: carol.id, password: PASSWORD })
    await page.getByRole("link", { name: "Workspaces & members" }).click()
    const form = page.getByRole("form", { name: "Add a member" })
    await form.getByLabel("Find by name or email").fill("carol")
    await form.getByLabel("Person", { exact: true }).selectOption({ label: "Carol Local <carol@example.test>" })
    await form.getByRole("button", { name: "Add member" }).click()
    await expect.poll(() => page.getByRole("table", { name: "Members" }).innerText()).toContain("carol@example.test")
    expect(await page.getByRole("table", { name: "Members" }).innerText()).not.toContain(carol.id!)
    await browser.screenshot("members-by-name")
  })

  step("lists the person's sessions, and signs out everywhere", async () => {
    await page.getByRole("link", { name: "My sessions" }).click()
    const sessions = page.getByRole("table", { name: "Sessions" })
    await expect.poll(() => sessions.innerText()).toContain("this session")
    expect(await sessions.innerText()).toMatch(/single sign-on/)
    await browser.screenshot("my-sessions")
    await page.getByRole("button", { name: "Sign out everywhere" }).click()
    await page.getByRole("button", { name: "Yes, sign out everywhere" }).click()
    await page.getByLabel("Email").waitFor()
    // The session is gone at the server too: a reload finds nobody signed in.
    await page.reload()
    await page.getByLabel("Email").waitFor()
  })

  step("signs a local account in through the email and password form", async () => {
    await page.getByLabel("Email").fill("carol@example.test")
    await page.getByLabel("Password", { exact: true }).fill("not carol's password at all")
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await expect.poll(() => page.getByRole("alert").allInnerTexts()).toEqual([expect.stringMatching(/email|password/i)])
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD)
    await page.getByRole("button", { name: "Sign in", exact: true }).click()
    await page.getByLabel("Signed in as").waitFor()
    expect(await who()).toContain("Carol Local")
    expect(await who()).toContain("carol@example.test")
    // She was added to the default workspace as a member above: a member's pages.
    expect(await sections()).not.toContain("Audit log")
    await signOutButton().click()
    await page.getByLabel("Email").waitFor()
  })

  step("made no request beyond 127.0.0.1 and logged no error", () => {
    expect(browser.outside).toEqual([])
    expect(browser.requests.every((url) => new URL(url).hostname === "127.0.0.1")).toBe(true)
    expect(browser.errors).toEqual([])
    expect(browser.unlabelled).toEqual([])
    expect(browser.violations).toEqual([])
  })
})
