/**
 * The console's Integrations page in Chromium against `gateway-control serve` on 127.0.0.1: the owner signs in
 * through the first-start link, creates an integration whose custom host is a fake OpenAI-compatible provider on
 * 127.0.0.1 (trusted), tests its credential (active, with a toast), sees its health in the list, and creates a
 * provider (`@slug`) on it. A field's error from the API shows under the field and goes once it is changed;
 * Enter in a field does not send the form. Nothing leaves 127.0.0.1, the page logs no error, axe finds nothing
 * serious at 1366 px, 390 px and in the dark theme.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, type BrowserSession, openBrowser } from "./support/Browser.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 })

describe.runIf(browserAvailable())("the console's integrations page", () => {
  let server: ServerProcess
  let browser: BrowserSession
  let fake: FakeProvider
  beforeAll(async () => {
    fake = await startFakeProvider("console")
    server = await startServerProcess({ TRUSTED_CUSTOM_HOSTS: fake.host })
    browser = await openBrowser(server.baseUrl)
  }, 90_000)
  afterAll(async () => {
    await browser?.close()
    server?.child.kill("SIGTERM")
    await server?.exited
    await fake?.close()
  })

  it("creates an integration, tests its credential, shows its health, and creates a provider on it", async () => {
    const link = /set your password: (\S+)/.exec(server.stderr())?.[1]
    expect(link).toMatch(/\/console\/invite#/)
    const { page } = browser
    await page.goto(link!)
    await page.getByLabel("Choose a password").fill("a long enough password")
    await page.getByLabel("Choose a password").press("Enter")
    await page.getByLabel("Signed in as").waitFor()
    await page.getByRole("link", { name: "Integrations & providers" }).first().click()
    await page.getByRole("heading", { name: "Integrations", exact: true }).waitFor()

    const form = page.getByRole("form", { name: "New integration" })
    // Enter in a field of this form of several fields sends nothing.
    await form.getByLabel("Name").fill("Fake OpenAI")
    await form.getByLabel("Name").press("Enter")
    await form.getByLabel("API key (write-only)").fill("sk-good")
    await form.getByLabel("Custom host (optional)").fill(fake.baseUrl)
    // A bad slug: the API's error shows under the field, and goes when the field changes.
    await form.getByLabel("Slug (optional)").fill("Not A Slug!")
    await form.getByRole("button", { name: "Create integration" }).click()
    await poll(() => form.getByRole("alert").count()).toBeGreaterThan(0)
    expect((await form.getByRole("alert").allInnerTexts()).join(" ")).toMatch(/slug/i)
    await form.getByLabel("Slug (optional)").fill("fake-openai")
    await poll(() => form.getByRole("alert").count()).toBe(0)
    await form.getByRole("button", { name: "Create integration" }).click()
    await poll(() => page.getByRole("status").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/Integration fake-openai created/)])
    )
    const row = page.getByRole("row").filter({ hasText: "fake-openai" })
    await row.waitFor()
    // The key is shown masked, never in clear.
    expect(await page.locator("main").innerText()).not.toContain("sk-good")

    await row.getByRole("button", { name: /Test/ }).click()
    await poll(() => page.getByRole("status").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/Fake OpenAI: active/)])
    )
    await poll(() => row.innerText()).toMatch(/active/)
    expect(await row.innerText()).toMatch(/Last success/)
    expect(fake.requests.some((r) => r.url === "/v1/models" && r.authorization === "Bearer sk-good")).toBe(
      true
    )

    const providerForm = page.getByRole("form", { name: "New provider" })
    await providerForm.getByLabel("Provider name").fill("Fake")
    await providerForm.getByLabel("Provider slug (optional)").fill("fake")
    await providerForm.getByLabel("Integration (slug or id)").fill("fake-openai")
    await providerForm.getByRole("button", { name: "Create provider" }).click()
    await poll(() => page.getByRole("status").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/Provider @fake created/)])
    )
    await page.getByRole("row").filter({ hasText: "@fake" }).waitFor()

    await browser.screenshot("integrations")
    expect(browser.overflows).toEqual([])
    expect(browser.unlabelled).toEqual([])
    expect(browser.violations).toEqual([])
    expect(browser.errors).toEqual([])
    expect(browser.outside).toEqual([])
  }, 120_000)
})
