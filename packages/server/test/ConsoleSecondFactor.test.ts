/**
 * A person's second factor in the console, in headless Chromium against `gateway-control serve` on 127.0.0.1:
 * the organisation requires one, and a person with a password and none signs in. The console offers them the
 * second-factor page alone (whatever address they open); they set up an authenticator app from the secret the
 * page shows (the test computes its codes with `otpauth`, as the app would), confirm it, and the console then
 * works fully. Signing out and in again takes the password and a code. Turning the factor off (allowed, with a
 * code) puts them back on the enrolment page until they set up a new one. At 390 px nothing scrolls sideways;
 * no request leaves 127.0.0.1 and the page logs no error.
 */
import * as OTPAuth from "otpauth"
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
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = browserAvailable()

const EMAIL = "dana@example.test"
const PASSWORD = "a long enough password for dana"

let server: ServerProcess
let browser: BrowserSession
let page: Page

const api = adminApi(() => server)
/** The admin key's call, which must succeed. */
const send = async (method: string, path: string, body: unknown) => {
  const answer = await api(method, path, body)
  expect(answer.status, answer.text).toBeLessThan(300)
  return answer.body as { readonly id?: string }
}

beforeAll(async () => {
  if (!available) return
  server = await startServerProcess()
  const dana = await send("POST", "/v1/users", { email: EMAIL, name: "Dana Scully", role: "admin" })
  await send("PUT", "/v1/auth/password", { user_id: dana.id, password: PASSWORD })
  await send("PATCH", "/v1/admin/sign-in-settings", { require_second_factor: true })
  browser = await openBrowser(server.baseUrl)
  page = browser.page
}, 120_000)

afterAll(async () => {
  if (available) await stopAll(browser, server)
})

const step = browserSteps("second-factor", () => page)

const PERIOD_MS = 30_000

/**
 * An authenticator app for a secret. The server accepts the code of its current 30-second step or of one step
 * either side, each step once: every code given is of a later step than the one before, waiting for the clock
 * when it must, and never of the step about to go stale.
 */
class Authenticator {
  private last = Number.NEGATIVE_INFINITY
  readonly totp: OTPAuth.TOTP
  constructor(totp: OTPAuth.TOTP) {
    this.totp = totp
  }
  async nextCode(): Promise<string> {
    for (;;) {
      const now = Date.now()
      const current = Math.floor(now / PERIOD_MS)
      const earliest = now % PERIOD_MS < PERIOD_MS - 8_000 ? current - 1 : current
      const wanted = Math.max(this.last + 1, earliest)
      if (wanted <= current + 1) {
        this.last = wanted
        return this.totp.generate({ timestamp: wanted * PERIOD_MS })
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    }
  }
  /** A code of no step near now: wrong. */
  wrongCode() {
    return this.totp.generate({ timestamp: Date.now() + 3_600_000 })
  }
}

const sections = () => page.getByRole("navigation", { name: "Sections" }).getByRole("link").allInnerTexts()
const signOutButton = () => page.getByRole("banner").getByRole("button", { name: "Sign out", exact: true })
const pathname = () => new URL(page.url()).pathname
/** How far the page scrolls sideways at the current width (evaluated in the page, where the DOM is). */
const horizontalOverflow = async () =>
  Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))

const signInWithPassword = async () => {
  await page.getByLabel("Email").fill(EMAIL)
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD)
  await page.getByRole("button", { name: "Sign in", exact: true }).click()
}

/** Sets up an authenticator app from what the page shows; answers it. */
const setUp = async () => {
  await page.getByRole("button", { name: "Set up an authenticator app" }).click()
  const secret = (await page.getByLabel("Secret", { exact: true }).innerText()).trim()
  const link = (await page.getByLabel("Setup link", { exact: true }).innerText()).trim()
  expect(link).toMatch(/^otpauth:\/\/totp\//)
  const parsed = OTPAuth.URI.parse(link)
  expect(parsed).toBeInstanceOf(OTPAuth.TOTP)
  expect(parsed.secret.base32).toBe(secret)
  expect(await page.getByRole("img", { name: "QR code of the setup link" }).isVisible()).toBe(true)
  return new Authenticator(
    new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: "SHA1" })
  )
}

const confirmWith = async (code: string) => {
  const form = page.getByRole("form", { name: "Confirm the second factor" })
  await form.getByLabel("Code from the app").fill(code)
  await form.getByRole("button", { name: "Confirm" }).click()
}

let app: Authenticator

describe.skipIf(!available)("a person's second factor in the console", () => {
  step("lands a person who must enrol on the second-factor page, and nowhere else", async () => {
    await page.goto(`${server.baseUrl}/console`)
    await signInWithPassword()
    await page.getByLabel("Signed in as").waitFor()
    await expect.poll(pathname).toBe("/console/second-factor")
    expect(await sections()).toEqual(["Second factor"])
    expect(await page.getByRole("status").first().innerText()).toMatch(/requires a second factor/)
    expect(await page.locator("main").innerText()).toMatch(/Required by your organisation\s+Yes/)
    // Another page's address leads back here: the session may do nothing else.
    await page.goto(`${server.baseUrl}/console/audit`)
    await page.getByRole("heading", { name: "Second factor" }).waitFor()
    await expect.poll(pathname).toBe("/console/second-factor")
    expect(await sections()).toEqual(["Second factor"])
    expect(await page.getByRole("table").count()).toBe(0)
    await browser.screenshot("second-factor-enrolment-only")
  })

  step("sets up the authenticator app from the secret shown, refuses a wrong code, and then works fully", async () => {
    app = await setUp()
    await browser.screenshot("second-factor-enrol")
    // A wrong code is refused next to the field; correcting it clears the error.
    await confirmWith(app.wrongCode())
    const field = page.getByLabel("Code from the app")
    await expect.poll(() => page.getByRole("alert").allInnerTexts()).toEqual([expect.stringMatching(/code/i)])
    expect(await field.getAttribute("aria-invalid")).toBe("true")
    const code = await app.nextCode()
    await field.fill(code)
    expect(await page.getByRole("alert").count()).toBe(0)
    await page.getByRole("button", { name: "Confirm" }).click()
    // The same session now acts with Dana's role: the console opens her first page.
    await page.getByRole("heading", { name: "Prompts" }).waitFor()
    await expect.poll(pathname).toBe("/console/prompts")
    // Said on the page it opens.
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/second factor is on/)])
    )
    expect(await sections()).toEqual(expect.arrayContaining(["Prompts", "Audit log", "My sessions", "Second factor"]))
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Second factor" }).click()
    await expect.poll(() => page.locator("main").innerText()).toMatch(/Authenticator app\s+On/)
  })

  step(
    "signs out, and signs in again at 390 px with the password and a code, Enter moving field to field",
    async () => {
      await signOutButton().click()
      await page.getByLabel("Email").waitFor()
      await page.setViewportSize({ width: 390, height: 844 })
      const email = page.getByLabel("Email")
      const password = page.getByLabel("Password", { exact: true })
      // Enter in the email field moves to the password: nothing is sent half filled.
      await email.fill(EMAIL)
      await email.press("Enter")
      await expect.poll(() => password.evaluate((field) => field === field.ownerDocument.activeElement)).toBe(true)
      expect(await page.getByRole("alert").count()).toBe(0)
      await password.fill(PASSWORD)
      await password.press("Enter")
      const code = page.getByLabel("Code")
      await code.waitFor()
      expect(await horizontalOverflow()).toBe(0)
      // A wrong code spends the challenge: back to the password form, which says why.
      await code.fill(app.wrongCode())
      await code.press("Enter")
      await expect.poll(() => page.getByRole("alert").allInnerTexts()).toEqual([expect.stringMatching(/code/i)])
      await password.waitFor()
      // Changing the field clears the error; the password is still there, so Enter starts again.
      await password.fill(PASSWORD)
      expect(await page.getByRole("alert").count()).toBe(0)
      await password.press("Enter")
      await code.fill(await app.nextCode())
      await code.press("Enter")
      // At 390 px the header's tools fold into the menu: the person's name is there, not on show.
      await page.getByLabel("Signed in as").waitFor({ state: "attached" })
      expect(await horizontalOverflow()).toBe(0)
      await page.setViewportSize({ width: 1280, height: 900 })
      await expect.poll(sections).toContain("Audit log")
      await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Prompts" }).click()
      await page.getByRole("heading", { name: "Prompts" }).waitFor()
    }
  )

  step("turns the factor off with a code (back to enrolment only, as required), and sets up a new one", async () => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Second factor" }).click()
    const form = page.getByRole("form", { name: "Turn off the second factor" })
    expect(await form.innerText()).toMatch(/requires a second factor/)
    await browser.screenshot("second-factor-active")
    await form.getByLabel("Code from the app").fill(await app.nextCode())
    await form.getByRole("button", { name: "Turn off second factor" }).click()
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/off/)])
    )
    await expect.poll(sections).toEqual(["Second factor"])
    await expect.poll(() => page.locator("main").innerText()).toMatch(/Authenticator app\s+Not set up/)
    const again = await setUp()
    await confirmWith(await again.nextCode())
    await page.getByRole("heading", { name: "Prompts" }).waitFor()
    expect(await sections()).toContain("Audit log")
  })

  step("fits 390 px, made no request beyond 127.0.0.1 and logged no error", () => {
    expect(browser.overflows).toEqual([])
    expect(browser.unlabelled).toEqual([])
    expect(browser.outside).toEqual([])
    expect(browser.requests.every((url) => new URL(url).hostname === "127.0.0.1")).toBe(true)
    expect(browser.errors).toEqual([])
  })
})
