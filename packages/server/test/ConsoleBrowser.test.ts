/**
 * The console in headless Chromium against `gateway-control serve` on 127.0.0.1, walking through what a platform
 * team does first: sign in with the bootstrap key, write a chat prompt, try it in the playground, version,
 * compare, publish and label it, hand out a rate-limited key, find it with the filters, edit, rotate and revoke
 * it, and find all of it in the audit log. Every request must stay on the server, and the page must log no
 * error. Screenshots of each page at 1280 and 390 px go to `screenshots/console/` (git ignores it).
 */
import type { Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect } from "vitest"
import { browserAvailable, type BrowserSession, browserSteps, openBrowser, stopAll } from "./support/Browser.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = browserAvailable()

let server: ServerProcess
let browser: BrowserSession
let page: Page
let promptId: string
const started = performance.now()

beforeAll(async () => {
  if (!available) return
  server = await startServerProcess()
  browser = await openBrowser(server.baseUrl)
  page = browser.page
})

afterAll(async () => {
  if (!available) return
  await stopAll(browser, server)
  console.info(`console browser tests: ${Math.round(performance.now() - started)} ms`)
})

/** Each step drives a real browser against a real server; on a loaded machine that takes a while. */
const step = browserSteps("browser", () => page, 90_000)

/** The error shown with a field, found through the field's own `aria-describedby`. */
const errorOf = async (field: Locator) => {
  await expect.poll(() => field.getAttribute("aria-invalid")).toBe("true")
  const ids = (await field.getAttribute("aria-describedby"))!.split(" ")
  return page.locator(`[id="${ids.find((id) => id.endsWith("-error"))}"]`).innerText()
}

const api = async (path: string, key = server.adminKey!) =>
  fetch(`${server.baseUrl}${path}`, { headers: { "x-service-api-key": key } })

/** The fields of the API's answers these tests read. */
interface SavedPrompt {
  readonly published_version: number
  readonly versions: ReadonlyArray<{ readonly string: string }>
  readonly labels: ReadonlyArray<{ readonly label: string; readonly version: number }>
}
const savedPrompt = async () => (await (await api(`/v1/prompts/${promptId}`)).json()) as SavedPrompt
interface SavedPartial {
  readonly published_version: number
  readonly description: string | null
  readonly string: string
}
interface SavedKey {
  readonly description: string | null
  readonly rate_limits: ReadonlyArray<{ readonly type: string; readonly unit: string; readonly value: number }>
  readonly rotated_at: string | null
  readonly transition_ends_at: string | null
}
const savedKey = async (id: string) => (await (await api(`/v1/api-keys/${id}`)).json()) as SavedKey
const savedPartial = async (id: string) => (await (await api(`/v1/prompts/partials/${id}`)).json()) as SavedPartial

describe.skipIf(!available)("the console in a browser", () => {
  step("redirects / to the console, and signs in with the bootstrap key kept in sessionStorage only", async () => {
    await page.goto(`${server.baseUrl}/`)
    expect(new URL(page.url()).pathname).toBe("/console")
    await browser.screenshot("sign-in")
    // A person signs in first; a key is the second choice, for automation.
    await page.getByLabel("Email").waitFor()
    await page.getByRole("button", { name: "Use an API key instead" }).click()
    await page.getByLabel("API key").fill("gwc_not-a-key-the-server-knows-0123456789abcdef")
    await page.getByRole("button", { name: "Sign in with key" }).click()
    expect(await errorOf(page.getByLabel("API key"))).toMatch(/key/i)

    // By keyboard: on a fresh page (the tab remembers the choice of a key) the key field is the first stop, and
    // Enter signs in.
    await page.reload()
    // The page first asks whether the browser holds a person's session (it does not), then offers the key.
    await page.getByLabel("API key").waitFor()
    await page.keyboard.press("Tab")
    await page.keyboard.type(server.adminKey!)
    await page.keyboard.press("Enter")
    await page.getByRole("heading", { name: "Prompts" }).waitFor()
    expect(page.url()).not.toContain(server.adminKey!)
    const stored = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: Object.values(localStorage)
    }))
    expect(stored.session).toContain(server.adminKey!)
    expect(JSON.stringify([stored.local, await page.context().cookies()])).not.toContain(server.adminKey!)
    await browser.screenshot("prompts")
  })

  step("creates a chat prompt with two messages and three variables, without writing JSON", async () => {
    await page.getByRole("link", { name: "New prompt" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Support bot")
    await page.getByLabel("Message 1 content").fill("You help {{company}} customers in {{language}}.")
    await page.getByLabel("Message 2 content").fill("{{question}}")
    const variables = page.getByRole("region", { name: "Detected variables" })
    await expect.poll(() => variables.getByRole("listitem").allInnerTexts()).toEqual([
      "company",
      "language",
      "question"
    ])
    await page.getByLabel("Model").fill("gpt-4o")
    await browser.screenshot("prompt-editor")
    await page.getByRole("button", { name: "Create prompt" }).click()
    await page.getByRole("heading", { name: "Support bot" }).waitFor()
    promptId = new URL(page.url()).pathname.split("/").at(-1)!

    const saved = await savedPrompt()
    expect(JSON.parse(saved.versions[0]!.string)).toEqual([
      { role: "system", content: "You help {{company}} customers in {{language}}." },
      { role: "user", content: "{{question}}" }
    ])
  })

  step("renders it in the playground, and shows temperature 5 refused next to Temperature", async () => {
    await page.getByRole("main").getByRole("link", { name: "Playground" }).click()
    await page.getByRole("heading", { name: "Playground: Support bot" }).waitFor()
    await page.getByLabel("company").fill("Acme")
    await page.getByLabel("language").fill("French")
    await page.getByLabel("question").fill("Where is my order?")
    await page.getByRole("button", { name: "Render" }).click()
    const body = page.getByLabel("Rendered body", { exact: true })
    await expect.poll(() => body.innerText()).toContain("You help Acme customers in French.")
    expect(await body.innerText()).toContain("Where is my order?")
    await browser.screenshot("playground")

    await page.getByLabel("Temperature").fill("5")
    await page.getByRole("button", { name: "Render" }).click()
    expect(await errorOf(page.getByLabel("Temperature"))).toMatch(/temperature|between|2/i)
    await browser.screenshot("playground-error")
  })

  step("saves a second version, diffs it against the first, publishes it and moves staging", async () => {
    await page.getByRole("link", { name: "Versions" }).click()
    await page.getByRole("link", { name: "New version" }).click()
    await expect.poll(() => page.getByLabel("Message 2 content").inputValue()).toBe("{{question}}")
    await page.getByLabel("Message 2 content").fill("Question: {{question}}")
    await page.getByLabel("Version description (optional)").fill("Prefix the question")
    await page.getByRole("button", { name: "Save version" }).click()
    await page.getByRole("button", { name: "Publish v2" }).waitFor()

    const diff = page.getByRole("region", { name: "Diff" })
    await expect.poll(() => diff.locator("td.removed").allInnerTexts()).toEqual(["{{question}}"])
    expect(await diff.locator("td.added").allInnerTexts()).toEqual(["Question: {{question}}"])
    await browser.screenshot("prompt-versions")

    // Publishing asks first, naming the callers whose answer changes, and says when it is done.
    await page.getByRole("button", { name: "Publish v2" }).click()
    expect(await page.getByRole("group", { name: /^Publish v2\?/ }).innerText()).toContain(
      "Calls naming support-bot alone render v2 instead of v1"
    )
    await page.getByRole("button", { name: "Yes, publish v2" }).click()
    await expect.poll(() => page.getByText(/published: version 2/).count()).toBe(1)
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toContainEqual(
      expect.stringContaining("Version 2 published")
    )
    expect(await page.getByRole("region", { name: "Which version callers get" }).innerText()).toContain(
      "Published version (v2)"
    )
    await page.getByLabel("Label", { exact: true }).selectOption("staging")
    await page.getByLabel("Version", { exact: true }).selectOption("2")
    await page.getByRole("button", { name: "Move label" }).click()
    expect(await page.getByRole("group", { name: "Confirm the label move" }).innerText()).toContain(
      "Calls naming support-bot@staging render version 2"
    )
    await page.getByRole("button", { name: "Yes, move staging" }).click()
    await expect.poll(() => page.locator(".labels li").allInnerTexts()).toContain("staging → version 2")
    await expect.poll(() => page.getByRole("status").allInnerTexts()).toContainEqual(
      expect.stringContaining("staging now points at version 2")
    )
    // The versions and the label picker come from their own routes.
    const paths = browser.requests.map((url) => new URL(url).pathname)
    expect(paths).toContain(`/v1/prompts/${promptId}/versions`)
    expect(paths).toContain("/v1/labels")

    const saved = await savedPrompt()
    expect(saved.published_version).toBe(2)
    expect(saved.labels).toContainEqual(expect.objectContaining({ label: "staging", version: 2 }))
  })

  step("creates a workspace key with two scopes and a rate limit, shows it once, and revokes it", async () => {
    await page.getByRole("link", { name: "API keys" }).click()
    await page.getByRole("heading", { name: "New API key" }).waitFor()
    const create = page.getByRole("form", { name: "New API key" })
    await create.getByLabel("Name", { exact: true }).fill("ci-bot")
    await create.getByLabel("Kind").selectOption("workspace/service")
    await create.getByLabel("Filter scopes").fill("prompts.re")
    await create.getByLabel("prompts.read").check()
    await create.getByLabel("prompts.render").check()
    await create.getByLabel("Requests per minute").fill("600")
    await create.getByRole("button", { name: "Create key" }).click()

    const shown = page.getByRole("textbox", { name: "New API key" })
    await shown.waitFor()
    const secret = await shown.inputValue()
    expect(secret).toMatch(/^gwc_/)
    await expect.poll(() => page.getByText("This is the only time the key is shown.").count()).toBe(1)
    await browser.screenshot("api-key-created")
    const scopes = (await (await api("/v1/scopes", secret)).json()) as { key: { id: string; scopes: Array<string> } }
    expect([...scopes.key.scopes].sort()).toEqual(["prompts.read", "prompts.render"])
    const keyId = scopes.key.id
    expect((await savedKey(keyId)).rate_limits).toEqual([{ type: "requests", unit: "rpm", value: 600 }])

    // In a tab of its own, the new key is offered only what its two scopes allow: it renders, by slug.
    const tab = await browser.context.newPage()
    await tab.goto(`${server.baseUrl}/console/playground`)
    await tab.getByRole("button", { name: "Use an API key instead" }).click()
    await tab.getByLabel("API key").fill(secret)
    await tab.getByRole("button", { name: "Sign in with key" }).click()
    await tab.getByLabel("Prompt slug or id").fill("support-bot")
    expect(await tab.getByRole("navigation", { name: "Sections" }).getByRole("link").allInnerTexts()).toEqual([
      "Playground"
    ])
    await tab.getByRole("button", { name: "Open" }).click()
    await tab.getByLabel("question").fill("Is it here?")
    await tab.getByRole("button", { name: "Render" }).click()
    await expect.poll(() => tab.getByLabel("Rendered body", { exact: true }).innerText()).toContain(
      "Question: Is it here?"
    )
    await tab.close()

    await page.getByRole("button", { name: "I have stored it" }).click()
    await expect.poll(() => page.content()).not.toContain(secret)
    const row = page.getByRole("row").filter({ hasText: "ci-bot" })
    expect(await row.innerText()).toContain(`${secret.slice(0, 4)}****${secret.slice(-4)}`)
    expect(await row.innerText()).toContain("600/min")

    // The filters go to the API: active workspace service keys named like it, which the admin key is not.
    const filters = page.getByRole("form", { name: "Key filters" })
    await filters.getByLabel("Status").selectOption("active")
    await filters.getByLabel("Kind").selectOption("workspace-service")
    await filters.getByLabel("Name contains").fill("CI-")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    const keyRows = page.getByRole("table", { name: "API keys" }).locator("tbody tr")
    await expect.poll(() => keyRows.count()).toBe(1)
    expect(await keyRows.innerText()).toContain("ci-bot")
    expect(browser.requests.map((url) => new URL(url).search)).toContain(
      "?status=active&type=workspace-service&name=CI-&page_size=25&current_page=0"
    )

    // Its details: a second limit and a description, through the update route.
    await row.getByRole("button", { name: "Details" }).click()
    const detail = page.getByRole("region", { name: "Key ci-bot" })
    await detail.getByRole("button", { name: "Edit" }).click()
    const edit = detail.getByRole("form", { name: "Edit key" })
    // A limit the API refuses is shown under the limits, by the param it names (once).
    await edit.getByLabel("Requests per second").fill("2000000000")
    await edit.getByRole("button", { name: "Save changes" }).click()
    expect(await errorOf(edit.getByLabel("Requests per second"))).toMatch(
      /^rate_limits\[0\]\.value: [^:]*between 1 and 1000000000$/
    )
    await edit.getByLabel("Requests per second").fill("5")
    await edit.getByLabel("Description").fill("CI pipeline")
    await edit.getByRole("button", { name: "Save changes" }).click()
    await expect.poll(() => detail.innerText()).toContain("5/s, 600/min")
    const edited = await savedKey(keyId)
    expect(edited.rate_limits).toEqual([
      { type: "requests", unit: "rps", value: 5 },
      { type: "requests", unit: "rpm", value: 600 }
    ])
    expect(edited.description).toBe("CI pipeline")
    expect((await api("/v1/scopes", secret)).headers.get("x-ratelimit-limit")).not.toBeNull()

    // Rotated with a transition: the new secret is shown once, and both work until the transition ends.
    await detail.getByLabel("Old secret keeps working for (minutes)").fill("30")
    await detail.getByRole("button", { name: "Rotate" }).click()
    await detail.getByRole("button", { name: "Yes, rotate" }).click()
    await page.getByRole("heading", { name: "Copy the new secret of ci-bot now" }).waitFor()
    const rotated = await shown.inputValue()
    expect(rotated).toMatch(/^gwc_/)
    expect(rotated).not.toBe(secret)
    await expect.poll(() => page.getByText("This is the only time the key is shown.").count()).toBe(1)
    expect(await page.getByRole("region", { name: /new secret/ }).innerText()).toMatch(/old secret keeps working/)
    expect((await api("/v1/scopes", secret)).status).toBe(200)
    expect((await api("/v1/scopes", rotated)).status).toBe(200)
    const afterRotation = await savedKey(keyId)
    expect(afterRotation.rotated_at).not.toBeNull()
    expect(Date.parse(afterRotation.transition_ends_at!) - Date.parse(afterRotation.rotated_at!)).toBe(30 * 60_000)
    await expect.poll(() => row.innerText()).toContain(`${rotated.slice(0, 4)}****${rotated.slice(-4)}`)
    expect(await row.innerText()).toContain("rotating")
    expect(await detail.innerText()).toContain("(in transition)")
    expect(await detail.getByRole("button", { name: "Rotate" }).count()).toBe(0)
    await browser.screenshot("api-key-rotated")
    await page.getByRole("button", { name: "I have stored it" }).click()
    await expect.poll(() => page.content()).not.toContain(rotated)

    // Revoked, it leaves the active keys: the list shows it again once the filters are cleared.
    await row.getByRole("button", { name: "Revoke" }).click()
    await row.getByRole("button", { name: "Yes, revoke" }).click()
    await expect.poll(() => keyRows.count()).toBe(0)
    expect((await api("/v1/scopes", secret)).status).toBe(401)
    expect((await api("/v1/scopes", rotated)).status).toBe(401)
    await filters.getByRole("button", { name: "Clear" }).click()
    await expect.poll(() => row.innerText()).toContain("revoked")
    expect(await keyRows.count()).toBeGreaterThan(1)
    await browser.screenshot("api-keys")
  })

  step("shows those actions in the audit log, filtered and in detail", async () => {
    await page.getByRole("link", { name: "Audit log" }).click()
    const rows = page.getByRole("table", { name: "Audit records" }).locator("tbody tr")
    const actions = async () =>
      (await rows.allInnerTexts()).map((r) => r.split("\t").slice(2, 5).join(" ").trim()).filter((r) => r !== "")
    await expect.poll(actions).toEqual(expect.arrayContaining([
      "create prompt 201",
      "update prompt 200",
      "publish prompt 200",
      "label prompt 200",
      "create api_key 201",
      "update api_key 200",
      "rotate api_key 200",
      "revoke api_key 200"
    ]))
    await browser.screenshot("audit-log")

    await page.getByLabel("Resource").fill("api_key")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect.poll(actions).toEqual([
      "revoke api_key 200",
      "rotate api_key 200",
      "update api_key 200",
      "update api_key 400",
      "create api_key 201"
    ])
    await rows.filter({ hasText: "create" }).getByRole("button", { name: /Details/ }).click()
    const detail = page.getByLabel("Request body")
    await expect.poll(() => detail.innerText()).toContain("ci-bot")
    await browser.screenshot("audit-record")

    await page.getByLabel("Status").fill("not-a-status")
    await page.getByRole("button", { name: "Apply filters" }).click()
    expect(await errorOf(page.getByLabel("Status"))).toMatch(/response_status_code|integer|number/i)
  })

  step("edits a partial: a second version, a diff, making either the default, and its details", async () => {
    await page.getByRole("link", { name: "Partials" }).click()
    await page.getByRole("link", { name: "New partial" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Signature")
    await page.getByLabel("Template").fill("Regards, {{agent}}")
    await expect.poll(() => page.getByRole("region", { name: "Detected variables" }).innerText()).toContain("agent")
    await page.getByRole("button", { name: "Create partial" }).click()
    await page.getByRole("heading", { name: "Signature" }).waitFor()
    const partialId = new URL(page.url()).pathname.split("/").at(-1)!

    // A new version starts from the published template, and the API publishes it at once.
    await expect.poll(() => page.getByLabel("Template").inputValue()).toBe("Regards, {{agent}}")
    await page.getByLabel("Template").fill("Kind regards, {{agent}}")
    await page.getByLabel("Version description (optional)").fill("Warmer")
    await page.getByRole("button", { name: "Save and publish a new version" }).click()
    await expect.poll(() => page.locator(".notice").innerText()).toContain("Version 2 saved and published")
    const diff = page.getByRole("region", { name: "Diff" })
    await expect.poll(() => diff.locator("td.removed").allInnerTexts()).toEqual(["Regards, {{agent}}"])
    expect(await diff.locator("td.added").allInnerTexts()).toEqual(["Kind regards, {{agent}}"])
    await browser.screenshot("partial")

    // Either version can be made the default again.
    await page.getByRole("button", { name: "Publish v1" }).click()
    await page.getByRole("button", { name: "Yes, publish v1" }).click()
    await expect.poll(() => page.getByText("published: version 1").count()).toBe(1)
    expect((await savedPartial(partialId)).published_version).toBe(1)
    await page.getByRole("button", { name: "Publish v2" }).click()
    await page.getByRole("button", { name: "Yes, publish v2" }).click()
    await expect.poll(() => page.getByText("published: version 2").count()).toBe(1)
    expect((await savedPartial(partialId)).published_version).toBe(2)

    // Its own fields change without a new version.
    const details = page.getByRole("form", { name: "Details" })
    await details.getByLabel("Description").fill("Email sign-off")
    await details.getByRole("button", { name: "Save details" }).click()
    await expect.poll(async () => (await savedPartial(partialId)).description).toBe("Email sign-off")
    const versions = (await (await api(`/v1/prompts/partials/${partialId}/versions`)).json()) as { total: number }
    expect(versions.total).toBe(2)
    expect((await savedPartial(partialId)).string).toBe("Kind regards, {{agent}}")

    await page.getByRole("link", { name: "All partials" }).click()
    await expect.poll(() => page.getByRole("row").filter({ hasText: "Signature" }).innerText()).toContain("v2")
    await browser.screenshot("partials")
  })

  step("files prompts in collections: a new collection, and the prompts list filtered by it", async () => {
    await page.getByRole("link", { name: "Collections" }).click()
    const form = page.getByRole("form", { name: "New collection" })
    await form.getByLabel("Name", { exact: true }).fill("Drafts")
    await form.getByRole("button", { name: "Create collection" }).click()
    const table = page.getByRole("table", { name: "Collections" })
    await expect.poll(() => table.innerText()).toContain("drafts")
    const listed = (await (await api("/v1/collections")).json()) as {
      data: ReadonlyArray<{ id: string; slug: string }>
    }
    const drafts = listed.data.find((c) => c.slug === "drafts")!
    const filed = await fetch(`${server.baseUrl}/v1/prompts`, {
      method: "POST",
      headers: { "x-service-api-key": server.adminKey!, "content-type": "application/json" },
      body: JSON.stringify({ name: "Draft reply", string: "Hello", model: "gpt-4o", collection_id: drafts.id })
    })
    expect(filed.status).toBe(201)

    await page.getByRole("link", { name: "Prompts" }).click()
    const prompts = page.getByRole("table", { name: "Prompts" })
    await expect.poll(() => prompts.locator("tbody tr").count()).toBeGreaterThan(1)
    await page.getByLabel("Collection").selectOption({ label: "Drafts" })
    await expect.poll(() => prompts.locator("tbody tr").allInnerTexts()).toEqual([
      expect.stringContaining("Draft reply")
    ])
  })

  step("registers MCP integrations at both levels and a server, with their visibility and status", async () => {
    await page.getByRole("link", { name: "MCP registry" }).click()
    const form = page.getByRole("form", { name: "New integration" })
    await form.getByLabel("Name", { exact: true }).fill("Docs search")
    await form.getByLabel("URL").fill("https://mcp.example.com/mcp")
    await form.getByLabel("Authentication").selectOption("headers")
    await form.getByLabel("Header value (write-only)").fill("Bearer sk-secret-value-1234")
    await form.getByRole("button", { name: "Create integration" }).click()
    const integrations = page.getByRole("table", { name: "Integrations" })
    await expect.poll(() => integrations.locator("tbody tr").allInnerTexts()).toHaveLength(1)
    await form.getByLabel("Name", { exact: true }).fill("Team tools")
    await form.getByLabel("URL").fill("https://tools.example.com/mcp")
    await form.getByLabel("Authentication").selectOption("none")
    await form.getByLabel("Level").selectOption("workspace")
    await form.getByRole("button", { name: "Create integration" }).click()
    await expect.poll(() => integrations.locator("tbody tr").allInnerTexts()).toHaveLength(2)
    const rows = await integrations.locator("tbody tr").allInnerTexts()
    expect(rows.find((r) => r.includes("Docs search"))).toMatch(/organisation\s+every workspace\s+headers\s+active/)
    expect(rows.find((r) => r.includes("Team tools"))).toMatch(/workspace\s+this workspace\s+none\s+active/)
    expect(await page.content()).not.toContain("sk-secret-value-1234")

    const server = page.getByRole("form", { name: "New server" })
    await server.getByLabel("Server name").fill("Docs")
    await server.getByLabel("Integration").selectOption({ label: "Docs search" })
    await server.getByRole("button", { name: "Create server" }).click()
    await expect.poll(() => page.getByRole("table", { name: "Servers" }).innerText()).toMatch(
      /Docs\s+docs\s+Docs search\s+active/
    )
    await browser.screenshot("mcp")
  })

  step("stores a virtual key write-only: the list shows it masked", async () => {
    await page.getByRole("link", { name: "Virtual keys & configs" }).click()
    const form = page.getByRole("form", { name: "New virtual key" })
    await form.getByLabel("Name", { exact: true }).fill("OpenAI main")
    await form.getByLabel("Provider key (write-only)").fill("sk-provider-abcdefghijklmnop")
    await form.getByRole("button", { name: "Create virtual key" }).click()
    await expect.poll(() => page.getByRole("table", { name: "Virtual keys" }).innerText()).toContain("sk-p****mnop")
    expect(await page.content()).not.toContain("sk-provider-abcdefghijklmnop")
    await browser.screenshot("providers")
  })

  step("shows workspaces, members and users to the admin key", async () => {
    await page.getByRole("link", { name: "Workspaces & members" }).click()
    await expect.poll(() => page.getByRole("table", { name: "Users" }).innerText()).toContain("owner@localhost")
    await expect.poll(() => page.getByRole("table", { name: "Workspaces" }).innerText()).toContain("default")
    await browser.screenshot("workspaces")
  })

  step("signs out and forgets the key", async () => {
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("API key").waitFor()
    expect(await page.evaluate(() => Object.values(sessionStorage))).not.toContain(server.adminKey!)
    await page.reload()
    await page.getByLabel("API key").waitFor()
  })

  step(
    "made no request beyond 127.0.0.1, logged no error, labelled every control, and needed no sideways scrolling",
    () => {
      expect(browser.outside).toEqual([])
      expect(browser.requests.length).toBeGreaterThan(20)
      expect(browser.requests.every((url) => url.startsWith(`${server.baseUrl}/`))).toBe(true)
      expect(browser.errors).toEqual([])
      expect(browser.overflows).toEqual([])
      expect(browser.unlabelled).toEqual([])
      expect(browser.violations).toEqual([])
    }
  )
})
