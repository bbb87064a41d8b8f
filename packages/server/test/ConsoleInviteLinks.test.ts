/**
 * The console's invitation page in Chromium: the owner's first-start link (`set your password: …/console/invite#…`
 * on `serve`'s stderr) opens a page that names the organisation and the email, takes a password and signs the
 * owner in; the link is then spent. A link of an invitation made by the owner does the same for a new person.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, type BrowserSession, openBrowser, stopAll } from "./support/Browser.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

describe.runIf(browserAvailable())("the console's invitation page", () => {
  let server: ServerProcess
  let browser: BrowserSession
  beforeAll(async () => {
    server = await startServerProcess()
    browser = await openBrowser(server.baseUrl)
  }, 90_000)
  afterAll(() => stopAll(browser, server))

  it("accepts the owner's first-start link with a password, signs the owner in, and the link is spent", async () => {
    const link = /set your password: (\S+)/.exec(server.stderr())?.[1]
    expect(link).toMatch(/\/console\/invite#/)
    const { page } = browser
    await page.goto(link!)
    await page.getByRole("heading", { name: /^Join / }).waitFor()
    expect(await page.locator("main").innerText()).toContain("owner@localhost")
    // Enter in the name field moves on to the password: the invitation is not accepted half filled.
    const name = page.getByLabel("Your name (optional)")
    const password = page.getByLabel("Choose a password")
    await name.fill("Olive Owner")
    await name.press("Enter")
    await expect.poll(() => password.evaluate((field) => field === field.ownerDocument.activeElement)).toBe(true)
    expect(await page.getByRole("alert").count()).toBe(0)
    // Too short: said under the field, and gone once the field changes.
    await password.fill("short")
    await password.press("Enter")
    await expect.poll(() => page.getByRole("alert").allInnerTexts()).toEqual([expect.stringMatching(/12 characters/)])
    await password.fill("a long enough password")
    expect(await page.getByRole("alert").count()).toBe(0)
    // It fits 390 px.
    await browser.screenshot("invite-link")
    expect(browser.overflows).toEqual([])
    await password.press("Enter")
    await page.getByLabel("Signed in as").waitFor()
    expect(await page.getByLabel("Signed in as").innerText()).toContain("owner@localhost")
    // The name given on the page is the owner's now, and the console says they are in.
    expect(await page.getByLabel("Signed in as").innerText()).toContain("Olive Owner")
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/Welcome to Default/)])
    )
    // Spent: the same link now says it cannot be used.
    await page.goto(link!)
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").innerText()).toMatch(/cannot be used/i)
    expect(browser.errors).toEqual([])
    expect(browser.outside).toEqual([])
  }, 60_000)
})
