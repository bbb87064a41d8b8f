/**
 * The console's invitation page in Chromium: the owner's first-start link (`set your password: …/console/invite#…`
 * on `serve`'s stderr) opens a page that names the organisation and the email, takes a password and signs the
 * owner in; the link is then spent. A link of an invitation made by the owner does the same for a new person.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, type BrowserSession, openBrowser } from "./support/Browser.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

describe.runIf(browserAvailable())("the console's invitation page", () => {
  let server: ServerProcess
  let browser: BrowserSession
  beforeAll(async () => {
    server = await startServerProcess()
    browser = await openBrowser(server.baseUrl)
  }, 90_000)
  afterAll(async () => {
    await browser?.close()
    server?.child.kill("SIGTERM")
    await server?.exited
  })

  it("accepts the owner's first-start link with a password, signs the owner in, and the link is spent", async () => {
    const link = /set your password: (\S+)/.exec(server.stderr())?.[1]
    expect(link).toMatch(/\/console\/invite#/)
    const { page } = browser
    await page.goto(link!)
    await page.getByRole("heading", { name: /^Join / }).waitFor()
    expect(await page.locator("main").innerText()).toContain("owner@localhost")
    await page.getByLabel("Choose a password").fill("a long enough password")
    await page.getByRole("button", { name: "Accept and sign in" }).click()
    await page.getByLabel("Signed in as").waitFor()
    expect(await page.getByLabel("Signed in as").innerText()).toContain("owner@localhost")
    // Spent: the same link now says it cannot be used.
    await page.goto(link!)
    await page.getByRole("alert").waitFor()
    expect(await page.getByRole("alert").innerText()).toMatch(/cannot be used/i)
    expect(browser.errors).toEqual([])
    expect(browser.outside).toEqual([])
  }, 60_000)
})
