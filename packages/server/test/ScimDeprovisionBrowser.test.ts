/**
 * Deprovisioning, as a person in the console sees it, in headless Chromium: two `serve` processes on one
 * PostgreSQL; a SCIM-provisioned person signs in to the console (email and password) and holds a workspace-user
 * key; their identity provider sets them `active: false` through process A. Within 1 s their session is refused
 * by both processes (the console in either, reloaded, asks them to sign in) and so is their key in B; they
 * cannot sign in again while inactive, and reactivating them revives neither the session nor the key.
 */
import { randomBytes } from "node:crypto"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, type BrowserSession, openBrowser } from "./support/Browser.ts"
import { freshDatabase, postgresUrl } from "./support/Databases.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = postgresUrl !== undefined && browserAvailable()

const PASSWORD = "a long enough password for the leaver"
const EMAIL = "console-leaver@example.test"

/** Calls `check` until it holds, for at most `withinMs`; the time it took. */
const within = async (withinMs: number, check: () => Promise<boolean>) => {
  const started = performance.now()
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return performance.now() - started
}

describe.skipIf(!available)("a person deprovisioned over SCIM, signed in to the console", () => {
  let a: ServerProcess
  let b: ServerProcess
  let browser: BrowserSession
  let pageA: Page
  let pageB: Page
  let token: string
  let userId: string
  let key: string
  const cleanups: Array<() => Promise<unknown> | unknown> = []

  const call = async (server: ServerProcess, method: string, path: string, body?: unknown, as = a.adminKey!) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { "x-service-api-key": as, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    return { status: response.status, body: JSON.parse((await response.text()) || "null") }
  }

  const scim = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${a.baseUrl}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    expect(response.status, await response.clone().text()).toBeLessThan(300)
    return JSON.parse((await response.text()) || "null")
  }

  const activeTo = (active: boolean) =>
    scim("PATCH", `/Users/${userId}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", path: "active", value: active }]
    })

  /** The console's own question, with the session's cookie: who is signed in? */
  const meStatus = async (server: ServerProcess, cookie: string) =>
    (await fetch(`${server.baseUrl}/v1/me`, { headers: { cookie } })).status

  const signInForm = (page: Page) => page.getByLabel("Password", { exact: true })

  beforeAll(async () => {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    const env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64")
    }
    a = await startServerProcess(env)
    cleanups.push(() => a.child.kill("SIGKILL"))
    b = await startServerProcess(env)
    cleanups.push(() => b.child.kill("SIGKILL"))

    token = (await call(a, "POST", "/v1/admin/scim-tokens", { name: "IdP" })).body.token
    userId = (await scim("POST", "/Users", { userName: EMAIL, name: { formatted: "Lee Ver" } })).id
    const workspaceId = (await call(a, "GET", "/v1/workspaces")).body.data[0].id
    expect((await call(a, "POST", `/v1/workspaces/${workspaceId}/members`, { user_id: userId, role: "member" })).status)
      .toBe(201)
    expect((await call(a, "PUT", "/v1/auth/password", { user_id: userId, password: PASSWORD })).status).toBe(200)
    key = (await call(a, "POST", "/v1/api-keys/workspace/user", {
      name: "leaver's key",
      workspace_id: workspaceId,
      user_id: userId,
      scopes: ["workspaces.list"]
    })).body.key

    browser = await openBrowser(a.baseUrl, [b.baseUrl])
    cleanups.push(() => browser.close())
    pageA = browser.page
    pageB = await browser.context.newPage()
  }, 120_000)

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  it("refuses their session in both processes and their key in B within 1 s; nothing revives", async () => {
    // Signed in through A's console; the cookie is the host's, so B's console admits the same session.
    await pageA.goto(`${a.baseUrl}/console`)
    await pageA.getByLabel("Email").fill(EMAIL)
    await signInForm(pageA).fill(PASSWORD)
    await pageA.getByRole("button", { name: "Sign in", exact: true }).click()
    await pageA.getByLabel("Signed in as").waitFor()
    expect(await pageA.getByLabel("Signed in as").innerText()).toContain(EMAIL)
    await pageB.goto(`${b.baseUrl}/console`)
    await pageB.getByLabel("Signed in as").waitFor()
    const cookie = (await browser.context.cookies(a.baseUrl)).map((c) => `${c.name}=${c.value}`).join("; ")
    expect(await meStatus(b, cookie)).toBe(200)
    expect(await call(b, "GET", "/v1/workspaces", undefined, key)).toMatchObject({ status: 200 })

    await activeTo(false)
    const took = await within(
      1_000,
      async () =>
        (await meStatus(a, cookie)) === 401 && (await meStatus(b, cookie)) === 401 &&
        (await call(b, "GET", "/v1/workspaces", undefined, key)).status === 401
    )
    expect(took).toBeLessThan(1_000)
    // The console, reloaded in either process, asks them to sign in.
    await pageB.reload()
    await signInForm(pageB).waitFor()
    await pageA.reload()
    await signInForm(pageA).waitFor()

    // While inactive their password signs them in nowhere.
    await pageA.getByLabel("Email").fill(EMAIL)
    await signInForm(pageA).fill(PASSWORD)
    await pageA.getByRole("button", { name: "Sign in", exact: true }).click()
    await expect.poll(() => pageA.getByRole("alert").allInnerTexts()).toEqual([
      expect.stringMatching(/email|password/i)
    ])

    // Reactivated, neither the old session nor the key comes back.
    await activeTo(true)
    for (const server of [a, b]) {
      expect(await meStatus(server, cookie)).toBe(401)
      expect((await call(server, "GET", "/v1/workspaces", undefined, key)).status).toBe(401)
    }
    expect(browser.outside).toEqual([])
  }, 120_000)
})
