/**
 * The console's playground in headless Chromium against `gateway-control serve` on 127.0.0.1, with fake
 * OpenAI-compatible providers on 127.0.0.1 behind a provider (an integration's key) and a virtual key with a custom
 * host: variables found in a partial, missing against empty, a run streamed as server-sent events with its tokens
 * and latency, Stop cancelling the provider's request, two versions side by side, the code to call it, Enter
 * never sending a form of several fields, and the editor's refusals. Each provider's log holds only the key stored
 * for its own host; nothing leaves 127.0.0.1, the page logs no error, and axe-core finds no serious or critical
 * violation, at 1366 and 390 px.
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
import { type FakeProvider, SLOW_MODEL, startFakeProvider } from "./support/FakeProvider.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = browserAvailable()

let server: ServerProcess
let browser: BrowserSession
let page: Page
let primary: FakeProvider
let hosted: FakeProvider
let workspaceKey: string
let promptId: string

const api = adminApi(() => server)
/** The call, which must succeed: its answer. */
const call = async (method: string, path: string, body: unknown, key = server.adminKey!) => {
  const answer = await api(method, path, body, key)
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
  return answer.body as Record<string, any>
}

beforeAll(async () => {
  if (!available) return
  ;[primary, hosted] = await Promise.all([startFakeProvider("primary"), startFakeProvider("hosted")])
  server = await startServerProcess({
    PROVIDER_BASE_URLS: `openai=${primary.baseUrl}`,
    TRUSTED_CUSTOM_HOSTS: hosted.host
  })
  const workspaces = await call("GET", "/v1/workspaces", undefined)
  const workspaceId = String(workspaces.data[0].id)
  workspaceKey = String(
    (await call("POST", "/v1/api-keys/workspace/service", {
      name: "playground",
      workspace_id: workspaceId,
      scopes: [
        "completions.write",
        "prompts.create",
        "prompts.read",
        "prompts.list",
        "prompts.update",
        "prompts.render",
        "virtual_keys.create",
        "virtual_keys.read",
        "virtual_keys.list",
        "workspace_integrations.read"
      ]
    })).key
  )
  await call("POST", "/v1/integrations", { name: "OpenAI prod", ai_provider_id: "openai", key: "sk-integration" })
  await call("PUT", "/v1/integrations/openai-prod/workspaces", { workspaces: [{ id: workspaceId, enabled: true }] })
  await call(
    "POST",
    "/v1/providers",
    { name: "Team OpenAI", integration_id: "openai-prod", slug: "team-openai" },
    workspaceKey
  )
  await call("POST", "/v1/virtual-keys", {
    name: "Hosted",
    slug: "hosted",
    provider: "openai",
    key: "sk-hosted",
    custom_host: hosted.baseUrl
  }, workspaceKey)
  await call(
    "POST",
    "/v1/prompts/partials",
    { name: "tone", slug: "tone", string: "Be {{tone}} with {{customer}}." },
    workspaceKey
  )
  const created = await call("POST", "/v1/prompts", {
    name: "Helpdesk",
    string: JSON.stringify([{ role: "system", content: "{{>tone}}" }, { role: "user", content: "{{question}}" }]),
    model: "gpt-4o-mini"
  }, workspaceKey)
  promptId = String(created.id)
  await call("PUT", `/v1/prompts/${promptId}`, {
    string: JSON.stringify([{ role: "system", content: "{{>tone}}" }, { role: "user", content: "Q: {{question}}" }])
  }, workspaceKey)
  browser = await openBrowser(server.baseUrl)
  page = browser.page
})

afterAll(async () => {
  if (!available) return
  await stopAll(browser, server)
  await Promise.all([primary, hosted].map((fake) => fake?.close()))
})

const step = browserSteps("playground", () => page, 90_000)

/**
 * axe-core's serious and critical violations on the page as it is now (at each width, light and dark), sideways
 * scrolling and unlabelled controls; a screenshot of each.
 */
const checkPage = (name: string) => browser.screenshot(name)

const panel = (version: number) => page.getByRole("region", { name: `Run of version ${version}` })
const answer = (version: number) => page.getByLabel(`Answer of version ${version}`)

describe.skipIf(!available)("the playground in a browser", () => {
  step("signs in with the workspace key and finds the variables of the template and of its partial", async () => {
    await page.goto(`${server.baseUrl}/console`)
    await page.getByRole("button", { name: "Use an API key instead" }).click()
    await page.getByLabel("API key").fill(workspaceKey)
    await page.getByRole("button", { name: "Sign in with key" }).click()
    await page.getByRole("heading", { name: "Prompts" }).waitFor()
    await page.goto(`${server.baseUrl}/console/prompts/${promptId}/playground`)
    await page.getByRole("heading", { name: "Playground: Helpdesk" }).waitFor()
    // The version shown is the published one (1); tone and customer come from the partial `tone`.
    for (const name of ["question", "tone", "customer"]) await page.getByLabel(name, { exact: true }).waitFor()
    expect(await page.locator("#variable-tone-hint").innerText()).toContain("From the partial tone")
  })

  step("tells missing from empty: an empty field is not sent, 'Send as empty text' sends \"\"", async () => {
    await page.getByLabel("question", { exact: true }).fill("Where is my order?")
    await page.getByLabel("tone", { exact: true }).fill("kind")
    const status = page.getByText(/Missing \(not sent\)|Every variable has a value/)
    await expect.poll(() => status.innerText()).toBe("Missing (not sent): customer.")
    await page.getByRole("button", { name: "Render" }).click()
    const rendered = page.getByRole("region", { name: "Rendered" })
    await expect.poll(() => rendered.innerText()).toContain("Be kind with .")
    expect(await rendered.getByRole("listitem").allInnerTexts()).toEqual(["customer"])

    await page.locator("#variable-customer-hint").locator("..").getByLabel("Send as empty text").check()
    await expect.poll(() => status.innerText()).toBe("Every variable has a value.")
    await page.getByRole("button", { name: "Render" }).click()
    await expect.poll(() => rendered.getByRole("listitem").count()).toBe(0)
    expect(await rendered.innerText()).toMatch(/Missing variables\s+None\./)
  })

  step("Enter in a field of the form sends nothing; the button renders", async () => {
    await page.getByLabel("Compare with").selectOption("2")
    await expect.poll(() => page.getByRole("region", { name: "Rendered" }).count()).toBe(0)
    await page.getByLabel("question", { exact: true }).press("Enter")
    await page.waitForTimeout(500)
    expect(await page.getByRole("region", { name: /^Rendered/ }).count()).toBe(0)
    await page.getByLabel("Compare with").selectOption("")
  })

  step("runs the prompt through the provider, streaming the answer with its tokens and latency", async () => {
    expect(await page.getByLabel("Provider").inputValue()).toBe("@team-openai")
    const before = primary.completions.length
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await expect.poll(() => answer(1).innerText(), { timeout: 20_000 }).toBe("Echo: Where is my order?")
    await expect.poll(() => panel(1).innerText()).toContain("Done")
    const stats = await panel(1).innerText()
    expect(stats).toMatch(/Tokens\s+\d+ prompt, 5 completion, \d+ total/)
    expect(stats).toMatch(/Latency\s+first token \d+ ms, total \d+ ms/)
    expect(primary.completions.length).toBe(before + 1)
    const asked = primary.completions.at(-1)!
    expect(asked.authorization).toBe("Bearer sk-integration")
    expect(asked.body).toMatchObject({
      model: "gpt-4o-mini",
      stream: true,
      messages: [{ role: "system", content: "Be kind with ." }, { role: "user", content: "Where is my order?" }]
    })
    expect(await checkPage("playground-run")).toEqual([])
  })

  step("Stop closes the stream, and the provider's request is cancelled", async () => {
    await page.getByLabel("Model").fill(SLOW_MODEL)
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await expect.poll(() => answer(1).innerText(), { timeout: 20_000 }).toContain("word0")
    const asked = primary.completions.at(-1)!
    expect(asked.body.model).toBe(SLOW_MODEL)
    await page.getByRole("button", { name: "Stop" }).click()
    await expect.poll(() => panel(1).innerText()).toContain("Stopped")
    await expect.poll(() => asked.aborted, { timeout: 20_000 }).toBe(true)
    expect(asked.finished).toBe(false)
    await page.getByLabel("Model").fill("")
  })

  step("compares two versions side by side through the virtual key, with the same variables", async () => {
    await page.getByLabel("Compare with").selectOption("2")
    await page.getByLabel("Provider").selectOption("@hosted")
    const before = hosted.completions.length
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await expect.poll(() => answer(1).innerText(), { timeout: 20_000 }).toBe("Echo: Where is my order?")
    await expect.poll(() => answer(2).innerText(), { timeout: 20_000 }).toBe("Echo: Q: Where is my order?")
    expect(hosted.completions.length).toBe(before + 2)
    const code = await page.getByRole("region", { name: "Code" }).innerText()
    expect(code).toContain(`${server.baseUrl}/v1/prompts/helpdesk@1/completions`)
    expect(code).toContain("x-portkey-provider: @hosted")
    expect(code).toContain("portkey.prompts.completions.create")
    expect(code).toContain("openai.chat.completions.create(rendered.data)")
    expect(code).toContain("\"customer\": \"\"")
    expect(await checkPage("playground-compare")).toEqual([])
  })

  step("runs an unsaved edit beside the version, saving nothing", async () => {
    await page.getByLabel("Compare with").selectOption("draft")
    const edit = page.getByLabel(/Unsaved edit/)
    await expect.poll(() => edit.inputValue()).toContain("{{question}}")
    await edit.fill(
      JSON.stringify([{ role: "system", content: "{{>tone}}" }, { role: "user", content: "Draft: {{question}}" }])
    )
    await page.getByRole("button", { name: "Run", exact: true }).click()
    await expect.poll(() => answer(1).innerText(), { timeout: 20_000 }).toBe("Echo: Where is my order?")
    await expect.poll(() => page.getByLabel("Answer of the unsaved edit").innerText(), { timeout: 20_000 })
      .toBe("Echo: Draft: Where is my order?")
    const versions = await fetch(`${server.baseUrl}/v1/prompts/${promptId}/versions`, {
      headers: { "x-service-api-key": workspaceKey }
    })
    expect(((await versions.json()) as { data: Array<unknown> }).data).toHaveLength(2)
    expect(await checkPage("playground-unsaved-edit")).toEqual([])
  })

  step("the editor: Enter sends nothing, and a prompt needs a model and a message with content", async () => {
    await page.goto(`${server.baseUrl}/console/prompts/new`)
    await page.getByLabel("Name", { exact: true }).fill("Half done")
    await page.getByLabel("Name", { exact: true }).press("Enter")
    await page.waitForTimeout(500)
    expect(new URL(page.url()).pathname).toBe("/console/prompts/new")
    await page.getByRole("button", { name: "Create prompt" }).click()
    const model = page.getByLabel("Model", { exact: true })
    await expect.poll(() => model.getAttribute("aria-invalid")).toBe("true")
    await model.fill("gpt-4o")
    await page.getByRole("button", { name: "Create prompt" }).click()
    await expect.poll(() => page.getByRole("group", { name: "Messages" }).innerText()).toContain(
      "at least one message"
    )
    expect(new URL(page.url()).pathname).toBe("/console/prompts/new")
    expect(await checkPage("prompt-editor-refusals")).toEqual([])
  })

  step("each provider saw only the key stored for its own host; nothing left 127.0.0.1; no page error", () => {
    expect(new Set(primary.completions.map((c) => c.authorization))).toEqual(new Set(["Bearer sk-integration"]))
    expect(new Set(hosted.completions.map((c) => c.authorization))).toEqual(new Set(["Bearer sk-hosted"]))
    expect(browser.outside).toEqual([])
    expect(browser.errors).toEqual([])
    return Promise.resolve()
  })
})
