/**
 * The console's jobs as a person does them, in Debian's Chromium against `gateway-control serve` on 127.0.0.1,
 * once at 1366 px and once at 390 px (a phone): the owner signs in through the first-start link, finds every
 * page through the navigation (folded behind "Menu" on the phone, so the page keeps the screen), and on each
 * page axe-core finds no serious or critical violation, in the light and the dark theme. The states every page
 * shares: a loading skeleton, a failed load that says the server could not be reached and retries, a field's
 * error that goes once the field is changed, success toasts. `/docs` loads nothing from the internet.
 *
 * Every request must stay on 127.0.0.1 and the page must log no error. Screenshots go to `screenshots/console/`;
 * `npm run screenshots` copies the README's from there.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect } from "vitest"
import {
  adminApi,
  browserAvailable,
  type BrowserSession,
  browserSteps,
  openBrowser,
  stopAll,
  WIDTHS
} from "./support/Browser.ts"
import { go as goTo, NARROW, poll, signInOwner, tablesFit } from "./support/ConsoleWalk.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = browserAvailable()

let server: ServerProcess
let mcp: SdkMcpServer
let browser: BrowserSession
let page: Page
let workspace: string

beforeAll(async () => {
  if (!available) return
  // A real MCP server on 127.0.0.1, trusted as a custom host, checked for health every half second.
  mcp = await startSdkMcpServer()
  server = await startServerProcess({
    TRUSTED_CUSTOM_HOSTS: mcp.host,
    MCP_HEALTH_INTERVAL_MS: "500",
    MCP_UNHEALTHY_AFTER: "2",
    MCP_TIMEOUT_MS: "3000"
  })
  browser = await openBrowser(server.baseUrl)
  page = browser.page
}, 90_000)

afterAll(async () => {
  if (!available) return
  await stopAll(browser, server)
  await mcp?.close()
})

const step = browserSteps("jobs", () => page)
const api = adminApi(() => server)

let width: number = WIDTHS[0]
const narrow = () => width < NARROW
/** Follows a link of the navigation, and checks that the page's tables fit the screen. */
const go = async (label: string) => {
  await goTo(page, label)
  await tablesFit(page)
}

const integrationIdOf = async (name: string) => {
  const organisation =
    ((await api("GET", "/v1/scopes")).body as { key: { organisation_id: string } }).key.organisation_id
  const listed = (await api("GET", `/v1/mcp-integrations?organisation_id=${organisation}&page_size=100`)).body as {
    data: ReadonlyArray<{ id: string; name: string }>
  }
  return listed.data.find((i) => i.name === name)!.id
}

describe.skipIf(!available)("the console's jobs at 1366 px and 390 px", () => {
  step("signs the owner in through the first-start link", async () => {
    await signInOwner(page, server, () => browser.screenshot("invite"))
    // Something on every list page.
    const workspaces = (await api("GET", "/v1/workspaces")).body as { data: ReadonlyArray<{ id: string }> }
    workspace = workspaces.data[0]!.id
    const made = await api("POST", "/v1/prompts", {
      name: "Greeting",
      string: "Hello {{name}}",
      model: "gpt-4o",
      workspace_id: workspace
    })
    expect(made.status).toBe(201)
  })

  for (const w of WIDTHS) {
    step(`at ${w} px: the navigation ${w < 760 ? "folds behind Menu" : "stays beside the page"}`, async () => {
      width = w
      await page.setViewportSize({ width, height: 844 })
      await page.goto(`${server.baseUrl}/console/prompts`)
      await page.getByRole("heading", { name: "Prompts" }).waitFor()
      const top = Number(await page.evaluate("document.querySelector('main').getBoundingClientRect().top"))
      const nav = page.getByRole("navigation", { name: "Sections" })
      if (narrow()) {
        // One bar, not 460 px of header and links: the page starts within the first 70 px.
        expect(top).toBeLessThan(70)
        console.info(`at ${width} px the page starts ${top} px from the top`)
        expect(await nav.isVisible()).toBe(false)
        await page.getByRole("button", { name: "Menu" }).click()
        expect(await nav.isVisible()).toBe(true)
        expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true)
        await browser.screenshot("menu-open")
        await nav.getByRole("link", { name: "Collections" }).click()
        await page.getByRole("heading", { name: "Collections" }).waitFor()
        expect(await nav.isVisible()).toBe(false)
      } else {
        expect(await page.getByRole("button", { name: "Menu" }).isVisible()).toBe(false)
        expect(await nav.isVisible()).toBe(true)
      }
    })

    step(`at ${w} px: every page passes axe (light and dark), and tables keep their actions in view`, async () => {
      const sections = await page.locator("nav.sidebar a").allTextContents()
      expect(sections).toEqual(expect.arrayContaining([
        "Prompts",
        "Playground",
        "Partials",
        "Collections",
        "MCP registry",
        "API keys",
        "Virtual keys & configs",
        "Audit log",
        "Trust policies",
        "SCIM",
        "Integrations & providers",
        "Identity providers",
        "Workspaces & members",
        "My sessions",
        "Second factor"
      ]))
      for (const label of sections) {
        await go(label)
        await browser.screenshot(`page-${label.toLowerCase().replace(/\W+/g, "-")}`)
      }
      await go("Prompts")
      await page.getByRole("link", { name: "Greeting" }).click()
      await page.getByRole("heading", { name: "Greeting" }).waitFor()
      await browser.screenshot("page-prompt")
      await page.getByRole("link", { name: "New version" }).click()
      await page.getByLabel("Model").waitFor()
      await browser.screenshot("page-prompt-editor")
      await go("Partials")
      await page.getByRole("link", { name: "New partial" }).click()
      await page.getByLabel("Template").waitFor()
      await browser.screenshot("page-new-partial")

      // On the phone a table is one card a row: its buttons are on screen, nothing scrolls sideways (`go`
      // checked each page above); the workspaces page has rows to show it.
      await go("Workspaces & members")
      expect(await page.locator("main table tbody tr").count()).toBeGreaterThan(0)
    })

    step(`at ${w} px: a failed load offers Retry, and a fixed field loses its error`, async () => {
      // The server cannot be reached for the prompts list: said plainly, with a Retry that works once it can.
      const cut = `${server.baseUrl}/v1/prompts?**`
      await page.route(cut, (route) => route.abort("connectionrefused"))
      await go("Collections")
      await go("Prompts").catch(() => undefined)
      const alert = page.getByRole("main").getByRole("alert")
      await poll(() => alert.innerText()).toContain("The server could not be reached")
      await page.unroute(cut)
      await alert.getByRole("button", { name: "Retry" }).click()
      await page.getByRole("table", { name: "Prompts" }).waitFor()
      // Chromium notes the refused request in the console; that one was made to fail.
      browser.errors.splice(0, browser.errors.length, ...browser.errors.filter((e) => !e.includes("ERR_CONNECTION")))

      await go("Collections")
      const form = page.getByRole("form", { name: "New collection" })
      await form.getByRole("button", { name: "Create collection" }).click()
      const name = form.getByLabel("Name", { exact: true })
      await poll(() => name.getAttribute("aria-invalid")).toBe("true")
      await name.fill(`Drafts ${width}`)
      await poll(() => name.getAttribute("aria-invalid")).toBe(null)
      expect(await form.locator(".field-error").count()).toBe(0)
      await form.getByRole("button", { name: "Create collection" }).click()
      await poll(() => page.getByRole("table", { name: "Collections" }).innerText()).toContain(`Drafts ${width}`)
    })

    step(`at ${w} px: a key from a preset, its scopes edited by group, revoked and read as revoked`, async () => {
      await go("API keys")
      const create = page.getByRole("form", { name: "New API key" })
      await create.getByLabel("Name", { exact: true }).fill(`renderer-${width}`)
      await create.getByLabel("Kind").selectOption("workspace/service")
      const renderer = create.getByRole("group", { name: "Scope presets" }).getByRole("button", { name: /^Renderer/ })
      await renderer.click()
      expect(await renderer.getAttribute("aria-pressed")).toBe("true")
      // Grouped, each scope with what it allows.
      await poll(() => create.getByRole("group", { name: /^Prompts \(2 of \d+\)$/ }).count()).toBe(1)
      expect(await create.getByLabel("prompts.render").isChecked()).toBe(true)
      expect(await create.getByText("Render prompts").count()).toBeGreaterThan(0)
      await browser.screenshot("api-key-presets")
      await create.getByRole("button", { name: "Create key" }).click()
      const secret = await page.getByRole("textbox", { name: "New API key" }).inputValue()
      await poll(() => page.getByRole("status").allInnerTexts()).toContainEqual(
        expect.stringContaining(`Key renderer-${width} created.`)
      )
      const own = (await (await fetch(`${server.baseUrl}/v1/scopes`, { headers: { "x-service-api-key": secret } }))
        .json()) as { key: { id: string; scopes: Array<string> } }
      expect([...own.key.scopes].sort()).toEqual(["prompts.read", "prompts.render"])
      await page.getByRole("button", { name: "I have stored it" }).click()

      const row = page.getByRole("row").filter({ hasText: `renderer-${width}` })
      await row.getByRole("button", { name: /^Details/ }).click()
      const detail = page.getByRole("region", { name: `Key renderer-${width}` })
      await detail.getByRole("button", { name: "Edit" }).click()
      const edit = detail.getByRole("form", { name: "Edit key" })
      await edit.getByRole("button", { name: /^MCP reader/ }).click()
      await edit.getByLabel("prompts.render").check()
      await edit.getByRole("button", { name: "Save changes" }).click()
      const scopesOf = async () =>
        [...((await api("GET", `/v1/api-keys/${own.key.id}`)).body as { scopes: Array<string> }).scopes].sort()
      await poll(scopesOf).toContain("mcp_servers.list")
      expect(await scopesOf()).toContain("prompts.render")
      expect(await scopesOf()).not.toContain("prompts.read")

      await row.getByRole("button", { name: "Revoke" }).click()
      await row.getByRole("button", { name: "Yes, revoke" }).click()
      await poll(() => detail.innerText()).toContain("Revoked.")
      expect(await detail.innerText()).toContain("neither secret works")
      expect(await detail.getByRole("button", { name: "Edit" }).count()).toBe(0)
      expect((await fetch(`${server.baseUrl}/v1/scopes`, { headers: { "x-service-api-key": secret } })).status).toBe(
        401
      )
    })

    step(
      `at ${w} px: an MCP integration tested, synced, its capabilities searched and toggled, its failure explained, archived`,
      async () => {
        mcp.failing = false
        await go("MCP registry")
        const form = page.getByRole("form", { name: "New integration" })
        const name = `Issues ${width}`
        await form.getByLabel("Name", { exact: true }).fill(name)
        await form.getByLabel("URL").fill(mcp.httpUrl)
        await form.getByLabel("Authentication").selectOption("none")
        await form.getByRole("button", { name: "Create integration" }).click()
        const row = page.getByRole("row").filter({ hasText: name })
        await row.getByRole("button", { name: /^Manage/ }).click()
        const detail = page.getByRole("region", { name: `Integration ${name}` })
        await detail.getByRole("button", { name: "Test connection" }).click()
        await poll(() => detail.getByRole("status").innerText()).toMatch(/Connected in \d+ ms/)
        await detail.getByRole("button", { name: "Sync capabilities" }).click()
        const caps = detail.getByRole("list", { name: "Capabilities" })
        await poll(() => caps.getByRole("listitem").count()).toBe(4)
        await poll(() => page.getByRole("status").allInnerTexts()).toContainEqual(
          expect.stringContaining("Synced: 4 capabilities")
        )
        // The search is the API's, in any case.
        await detail.getByLabel("Search capabilities").fill("CREATE_")
        await poll(() => caps.getByRole("listitem").allInnerTexts()).toEqual([
          expect.stringContaining("create_issue")
        ])
        // The switch turns once the API has answered (playwright's uncheck() wants it at once).
        const toggle = caps.getByRole("switch", { name: /create_issue/ })
        await toggle.click()
        await poll(() => toggle.isChecked()).toBe(false)
        const integrationId = await integrationIdOf(name)
        await poll(async () => {
          const listed = (await api("GET", `/v1/mcp-integrations/${integrationId}/capabilities?search=create_issue`))
            .body as { data: ReadonlyArray<{ enabled: boolean }> }
          return listed.data[0]?.enabled
        }).toBe(false)
        await detail.getByLabel("Search capabilities").fill("nothing-like-this")
        await poll(() => detail.innerText()).toContain("No match")
        await detail.getByLabel("Search capabilities").fill("")
        await poll(() => caps.getByRole("listitem").count()).toBe(4)
        await browser.screenshot("mcp-integration")

        // The server fails: the health checks mark it unhealthy, and the page says why and since when.
        mcp.failing = true
        await poll(
          async () => ((await api("GET", `/v1/mcp-integrations/${integrationId}`)).body as { status: string }).status,
          {
            timeout: 30_000
          }
        ).toBe("unhealthy")
        await go("Prompts")
        await go("MCP registry")
        await poll(() => row.innerText()).toMatch(/unhealthy\s+since .+: .*503/)
        await row.getByRole("button", { name: /^Manage/ }).click()
        expect(await detail.innerText()).toMatch(/Failed checks in a row\s+\d/)
        await browser.screenshot("mcp-unhealthy")
        // Archived at any status.
        await row.getByRole("button", { name: "Archive" }).click()
        await row.getByRole("button", { name: "Yes, archive" }).click()
        await poll(async () =>
          ((await api("GET", `/v1/mcp-integrations/${integrationId}`)).body as { status: string }).status
        ).toBe("archived")
        await poll(() => page.getByRole("status").allInnerTexts()).toContainEqual(
          expect.stringContaining(`${name} archived.`)
        )
        mcp.failing = false
      }
    )

    step(
      `at ${w} px: the audit log filtered by typed choices in any case, and "No match" apart from "Nothing yet"`,
      async () => {
        await go("Audit log")
        const filters = page.getByRole("form", { name: "Filters" })
        await filters.getByLabel("Action").fill("REVOKE")
        await filters.getByLabel("Resource").fill("Api_Key")
        await filters.getByRole("button", { name: "Apply filters" }).click()
        const rows = page.getByRole("table", { name: "Audit records" }).locator("tbody tr")
        // Only revocations of API keys, however the filter was typed.
        await poll(async () => {
          const texts = await rows.allTextContents()
          return texts.length > 0 && texts.every((r) => r.includes("revokeapi_key"))
        }).toBe(true)
        await filters.getByLabel("Action").fill("no-such-action")
        await filters.getByRole("button", { name: "Apply filters" }).click()
        await poll(() => page.getByRole("main").innerText()).toContain("No match")
        expect(await page.getByRole("main").innerText()).not.toContain("Nothing here yet.")
        await filters.getByRole("button", { name: "Clear" }).click()
        await poll(() => rows.count()).toBeGreaterThan(0)
      }
    )
  }

  step("serves /docs with nothing from the internet", async () => {
    await page.setViewportSize({ width: 1366, height: 844 })
    const before = browser.requests.length
    await page.goto(`${server.baseUrl}/docs`)
    await page.waitForLoadState("networkidle")
    await page.getByText("Prompts", { exact: false }).first().waitFor()
    const asked = browser.requests.slice(before)
    expect(asked.length).toBeGreaterThan(0)
    expect(asked.filter((url) => !url.startsWith(`${server.baseUrl}/`))).toEqual([])
  })

  step("made no request beyond 127.0.0.1, logged no error, and axe found nothing serious", () => {
    expect(browser.outside).toEqual([])
    expect(browser.errors).toEqual([])
    expect(browser.overflows).toEqual([])
    expect(browser.unlabelled).toEqual([])
    expect(browser.violations).toEqual([])
  })
})
