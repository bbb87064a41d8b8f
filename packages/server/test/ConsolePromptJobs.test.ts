/**
 * The console's prompt and people jobs as a person does them, in Debian's Chromium against `gateway-control
 * serve` on 127.0.0.1, once at 1366 px and once at 390 px (a phone), each outcome checked through the API:
 * - the editor: Enter in the name field moves on and sends nothing; a chat template without a message with
 *   content, and a prompt without a model, are refused with the field named (by the page, and by the API);
 * - publishing: the prompt page explains the published version and labels; publishing and moving a label each
 *   ask first, naming what changes for which callers, and say when it is done;
 * - partials (a version, the default moved back) and collections (the prompts list filtered by one);
 * - people by name and email: a user made, added to the workspace by picking them by name, the audit log
 *   filtered by a person picked the same way, and no raw id where a name exists.
 * Nothing scrolls sideways (tables become cards on the phone), axe-core finds nothing serious on any page, no
 * request leaves 127.0.0.1 and the page logs no error.
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
import { go, poll, signInOwner, tablesFit } from "./support/ConsoleWalk.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const available = browserAvailable()

let server: ServerProcess
let browser: BrowserSession
let page: Page
let workspace: string
let ownerId: string

beforeAll(async () => {
  if (!available) return
  server = await startServerProcess()
  browser = await openBrowser(server.baseUrl)
  page = browser.page
}, 90_000)

afterAll(async () => {
  if (available) await stopAll(browser, server)
})

const step = browserSteps("prompt-jobs", () => page)
const api = adminApi(() => server)

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

/** The API's refusal: its status and the field it names. */
const refusal = (answer: { status: number; body: unknown }) => ({
  status: answer.status,
  param: (answer.body as { error?: { param: string | null } }).error?.param
})

/** Whether `label` is the field with the focus. */
const focused = (label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((field) => field === field.ownerDocument.activeElement)

interface SavedPrompt {
  readonly slug: string
  readonly published_version: number
  readonly labels: ReadonlyArray<{ readonly label: string; readonly version: number }>
}

describe.skipIf(!available)("the console's prompt and people jobs at 1366 px and 390 px", () => {
  step("signs the owner in through the first-start link", async () => {
    await signInOwner(page, server)
    const workspaces = (await api("GET", "/v1/workspaces")).body as { data: ReadonlyArray<{ id: string }> }
    workspace = workspaces.data[0]!.id
    const users = (await api("GET", "/v1/users")).body as { data: ReadonlyArray<{ id: string; email: string }> }
    ownerId = users.data.find((u) => u.email === "owner@localhost")!.id
  })

  for (const width of WIDTHS) {
    let promptId: string

    step(`at ${width} px: the editor moves on at Enter, names the missing message and model, then saves`, async () => {
      await page.setViewportSize({ width, height: 844 })
      await go(page, "Prompts")
      await page.getByRole("main").getByRole("link", { name: "New prompt" }).click()
      const form = page.getByRole("form", { name: "New prompt" })
      const name = form.getByLabel("Name", { exact: true })
      await name.fill(`Triage ${width}`)
      // Enter moves on to the next field; the form is not sent half filled.
      await name.press("Enter")
      await poll(() => focused("Slug (optional)")).toBe(true)
      expect(new URL(page.url()).pathname).toBe("/console/prompts/new")
      expect(await form.getByRole("alert").count()).toBe(0)

      // No model: the page names the field, and so does the API.
      await form.getByLabel("Message 1 content").fill("You sort support tickets.")
      await form.getByLabel("Message 2 content").fill("Sort this ticket: {{ticket}}")
      await form.getByRole("button", { name: "Create prompt" }).click()
      const model = form.getByLabel("Model", { exact: true })
      await poll(() => model.getAttribute("aria-invalid")).toBe("true")
      expect(await form.innerText()).toContain("Name the model the prompt runs on")
      const messages = [
        { role: "system", content: "You sort support tickets." },
        { role: "user", content: "Sort this ticket: {{ticket}}" }
      ]
      expect(refusal(
        await api("POST", "/v1/prompts", {
          name: "No model",
          string: JSON.stringify(messages),
          workspace_id: workspace
        })
      )).toEqual({ status: 400, param: "model" })

      // A model, but no message with content: refused, naming the messages; the API names `string`.
      await model.fill("gpt-4o")
      await poll(() => model.getAttribute("aria-invalid")).toBe(null)
      await form.getByLabel("Message 1 content").fill("   ")
      await form.getByLabel("Message 2 content").fill("")
      await form.getByRole("button", { name: "Create prompt" }).click()
      await poll(() => form.getByRole("group", { name: "Messages" }).innerText()).toContain("at least one message")
      expect(new URL(page.url()).pathname).toBe("/console/prompts/new")
      expect(await browser.screenshot("editor-refused")).toEqual([])
      expect(refusal(
        await api("POST", "/v1/prompts", {
          name: "No content",
          string: JSON.stringify([{ role: "user", content: " " }]),
          model: "gpt-4o",
          workspace_id: workspace
        })
      )).toEqual({ status: 400, param: "string" })

      // Fixed, it saves.
      await form.getByLabel("Message 1 content").fill("You sort support tickets.")
      await form.getByLabel("Message 2 content").fill("Sort this ticket: {{ticket}}")
      await form.getByRole("button", { name: "Create prompt" }).click()
      await page.getByRole("heading", { name: `Triage ${width}` }).waitFor()
      promptId = new URL(page.url()).pathname.split("/").at(-1)!
      const saved = (await api("GET", `/v1/prompts/${promptId}`)).body as {
        versions: ReadonlyArray<{ string: string }>
      }
      expect(JSON.parse(saved.versions[0]!.string)).toEqual(messages)
      const refused = ((await api("GET", `/v1/prompts?workspace_id=${workspace}&page_size=100`)).body as {
        data: ReadonlyArray<{ name: string }>
      }).data.filter((p) => p.name === "No model" || p.name === "No content")
      expect(refused).toEqual([])
    })

    step(`at ${width} px: publishing and moving a label explained, confirmed, and told`, async () => {
      const slug = ((await api("GET", `/v1/prompts/${promptId}`)).body as SavedPrompt).slug
      const how = page.getByRole("region", { name: "Which version callers get" })
      expect(await how.innerText()).toContain(`what a call naming ${slug} alone renders`)
      expect(await how.innerText()).toContain("publishing does not move labels")
      await page.getByRole("main").getByRole("link", { name: "New version" }).click()
      const edit = page.getByRole("form", { name: "New version" })
      await poll(() => edit.getByLabel("Message 2 content").inputValue()).toBe("Sort this ticket: {{ticket}}")
      await edit.getByLabel("Message 2 content").fill("Sort this ticket by urgency: {{ticket}}")
      await edit.getByRole("button", { name: "Save version" }).click()
      const publish = page.getByRole("button", { name: "Publish v2" })
      await publish.waitFor()
      await tablesFit(page)

      await publish.click()
      expect(await page.getByRole("group", { name: /^Publish v2\?/ }).innerText()).toContain(
        `Calls naming ${slug} alone render v2 instead of v1`
      )
      await browser.screenshot("publish-confirm")
      await page.getByRole("button", { name: "Yes, publish v2" }).click()
      await poll(() => page.getByRole("status").allInnerTexts()).toContainEqual(
        expect.stringContaining(`Version 2 published: calls naming ${slug} now get it.`)
      )
      await poll(() => how.innerText()).toContain("Published version (v2)")
      // Publishing moved no label: production still renders v1 until it is moved itself.
      const published = (await api("GET", `/v1/prompts/${promptId}`)).body as SavedPrompt
      expect(published.published_version).toBe(2)
      expect(published.labels).toContainEqual(expect.objectContaining({ label: "production", version: 1 }))
      await page.getByLabel("Label", { exact: true }).selectOption("production")
      await page.getByLabel("Version", { exact: true }).selectOption("2")
      await page.getByRole("button", { name: "Move label" }).click()
      expect(await page.getByRole("group", { name: "Confirm the label move" }).innerText()).toContain(
        `Calls naming ${slug}@production render version 2`
      )
      await page.getByRole("button", { name: "Yes, move production" }).click()
      await poll(() => page.getByRole("status").allInnerTexts()).toContainEqual(
        expect.stringContaining("production now points at version 2")
      )
      await poll(() => how.innerText()).toContain("production → v2")
      const saved = (await api("GET", `/v1/prompts/${promptId}`)).body as SavedPrompt
      expect(saved.published_version).toBe(2)
      expect(saved.labels).toContainEqual(expect.objectContaining({ label: "production", version: 2 }))
      expect(await browser.screenshot("prompt-published")).toEqual([])
    })

    step(`at ${width} px: a partial gets a second version and its first made the default again`, async () => {
      await go(page, "Partials")
      await page.getByRole("main").getByRole("link", { name: "New partial" }).click()
      await page.getByLabel("Name", { exact: true }).fill(`Sign-off ${width}`)
      await page.getByLabel("Template").fill("Regards, {{agent}}")
      await poll(() => page.getByRole("region", { name: "Detected variables" }).innerText()).toContain("agent")
      await page.getByRole("button", { name: "Create partial" }).click()
      await page.getByRole("heading", { name: `Sign-off ${width}` }).waitFor()
      const partialId = new URL(page.url()).pathname.split("/").at(-1)!
      await poll(() => page.getByLabel("Template").inputValue()).toBe("Regards, {{agent}}")
      await page.getByLabel("Template").fill("Kind regards, {{agent}}")
      await page.getByRole("button", { name: "Save and publish a new version" }).click()
      await poll(() => page.locator(".notice").innerText()).toContain("Version 2 saved and published")
      await tablesFit(page)
      await page.getByRole("button", { name: "Publish v1" }).click()
      await page.getByRole("button", { name: "Yes, publish v1" }).click()
      await poll(() => page.getByText("published: version 1").count()).toBe(1)
      const saved = (await api("GET", `/v1/prompts/partials/${partialId}`)).body as {
        published_version: number
        string: string
      }
      expect(saved).toMatchObject({ published_version: 1, string: "Regards, {{agent}}" })
      expect(await browser.screenshot("partial")).toEqual([])
    })

    step(`at ${width} px: a collection made, and the prompts list filtered by it`, async () => {
      await go(page, "Collections")
      const form = page.getByRole("form", { name: "New collection" })
      await form.getByLabel("Name", { exact: true }).fill(`Shelf ${width}`)
      await form.getByRole("button", { name: "Create collection" }).click()
      await poll(() => page.getByRole("table", { name: "Collections" }).innerText()).toContain(`Shelf ${width}`)
      await tablesFit(page)
      const listed = (await api("GET", `/v1/collections?workspace_id=${workspace}&page_size=100`)).body as {
        data: ReadonlyArray<{ id: string; name: string }>
      }
      const shelf = listed.data.find((c) => c.name === `Shelf ${width}`)!
      const filed = await api("POST", "/v1/prompts", {
        name: `Shelved ${width}`,
        string: "Hello",
        model: "gpt-4o",
        collection_id: shelf.id
      })
      expect(filed.status).toBe(201)
      await go(page, "Prompts")
      const prompts = page.getByRole("table", { name: "Prompts" })
      await poll(() => prompts.locator("tbody tr").count()).toBeGreaterThan(1)
      await page.getByLabel("Collection").selectOption({ label: `Shelf ${width}` })
      await poll(() => prompts.locator("tbody tr").allInnerTexts()).toEqual([
        expect.stringContaining(`Shelved ${width}`)
      ])
      await tablesFit(page)
    })

    step(`at ${width} px: people by name and email, a member picked by name, the audit log by person`, async () => {
      const person = { name: `Grace Hopper ${width}`, email: `grace-${width}@example.test` }
      await go(page, "Workspaces & members")
      const create = page.getByRole("form", { name: "New user" })
      await create.getByLabel("Email").fill(person.email)
      await create.getByLabel("Name (optional)").fill(person.name)
      await create.getByRole("button", { name: "Create user" }).click()
      await poll(() => page.getByRole("table", { name: "Users" }).innerText()).toContain(person.email)
      expect(await page.getByRole("table", { name: "Users" }).innerText()).toContain(person.name)

      // Picked by a search over names and emails, in any case: no id to paste.
      const add = page.getByRole("form", { name: "Add a member" })
      await add.getByLabel("Find by name or email").fill(`HOPPER ${width}`)
      const picker = add.getByLabel("Person", { exact: true })
      await poll(() => picker.locator("option").allInnerTexts()).toEqual([
        "Choose a person…",
        `${person.name} <${person.email}>`
      ])
      await picker.selectOption({ label: `${person.name} <${person.email}>` })
      await add.getByLabel("Workspace role").selectOption("manager")
      await add.getByRole("button", { name: "Add member" }).click()
      const members = page.getByRole("table", { name: "Members" })
      await poll(() => members.innerText()).toContain(person.email)
      expect(await members.innerText()).toContain(person.name)
      const listed = (await api("GET", `/v1/workspaces/${workspace}/members?page_size=100`)).body as {
        data: ReadonlyArray<{ email: string; role: string }>
      }
      expect(listed.data).toContainEqual(expect.objectContaining({ email: person.email, role: "manager" }))
      expect(await page.getByRole("main").innerText()).not.toMatch(UUID)
      await tablesFit(page)
      expect(await browser.screenshot("people")).toEqual([])

      // The audit log: the person is a choice too; the owner made the user, the new person did nothing yet.
      await go(page, "Audit log")
      const filters = page.getByRole("form", { name: "Filters" })
      const who = filters.getByLabel("Person", { exact: true })
      await filters.getByLabel("Find by name or email").fill("OWNER@")
      await who.selectOption({
        label: (await who.locator("option").allInnerTexts()).find((o) => o.includes("owner@"))!
      })
      await filters.getByRole("button", { name: "Apply filters" }).click()
      const rows = page.getByRole("table", { name: "Audit records" }).locator("tbody tr")
      await poll(async () => {
        const texts = await rows.allInnerTexts()
        return texts.length > 0 && texts.every((r) => r.includes("owner@localhost"))
      }).toBe(true)
      expect(browser.requests.some((url) => new URL(url).searchParams.get("user_id") === ownerId)).toBe(true)
      expect(await page.getByRole("table", { name: "Audit records" }).innerText()).not.toMatch(UUID)
      await tablesFit(page)
      await filters.getByLabel("Find by name or email").fill(person.email)
      await who.selectOption({ label: `${person.name} <${person.email}>` })
      await filters.getByRole("button", { name: "Apply filters" }).click()
      await poll(() => page.getByRole("main").innerText()).toContain("No match")
      await filters.getByRole("button", { name: "Clear" }).click()
      await poll(() => rows.count()).toBeGreaterThan(0)
    })
  }

  step("made no request beyond 127.0.0.1, logged no error, and axe found nothing serious", () => {
    expect(browser.outside).toEqual([])
    expect(browser.errors).toEqual([])
    expect(browser.overflows).toEqual([])
    expect(browser.unlabelled).toEqual([])
    expect(browser.violations).toEqual([])
  })
})
