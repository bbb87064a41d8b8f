/**
 * The console's Integrations & providers page in Chromium against `gateway-control serve` on 127.0.0.1, every
 * job walked once at 1366 px and once at 390 px, each outcome checked through the API:
 * - secret references: created (Vault, the gateway's secrets file), changed, deleted after a confirmation that
 *   names the integrations taking a secret from them; the login's secret never shown;
 * - an integration created at organisation level (a field's error shown and cleared), shared with a workspace,
 *   its models allowed, tested (failing with the provider's reason, in the list), renamed, its key rotated (then
 *   active, and the fake provider receives only the new key), moved to a secret reference (the provider then
 *   receives only the file's secret), deleted after
 *   a confirmation naming the providers that use it (refused while one does);
 * - a provider created on it, changed and deleted.
 * Nothing leaves 127.0.0.1, the page logs no error, axe finds nothing serious at 1366 px, 390 px and dark.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Locator, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { browserAvailable, type BrowserSession, openBrowser, WIDTHS } from "./support/Browser.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 20_000, interval: 100 })

/** The secret `MCP_SECRETS_FILE` holds for the integrations, sent only to the fake provider. */
const FILE_SECRET = "sk-from-file"
const VAULT_TOKEN = "hvs.console-vault-token"
/** The one key the fake provider's model list takes. */
const NEW_KEY = "sk-good"

describe.runIf(browserAvailable())("the console's integrations page", () => {
  let server: ServerProcess
  let browser: BrowserSession
  let fake: FakeProvider
  const pageReads: Array<string> = []
  beforeAll(async () => {
    fake = await startFakeProvider("console")
    const secrets = join(mkdtempSync(join(tmpdir(), "console-integrations-")), "secrets.json")
    writeFileSync(secrets, JSON.stringify({ "console-key": { value: FILE_SECRET, hosts: [fake.host] } }))
    server = await startServerProcess({ TRUSTED_CUSTOM_HOSTS: fake.host, MCP_SECRETS_FILE: secrets })
    browser = await openBrowser(server.baseUrl)
    // What the page itself reads (the test's own reads through the context's request API are not in it).
    browser.page.on("request", (request) => {
      if (request.method() === "GET") pageReads.push(new URL(request.url()).pathname)
    })
    const link = /set your password: (\S+)/.exec(server.stderr())?.[1]
    expect(link).toMatch(/\/console\/invite#/)
    await browser.page.goto(link!)
    await browser.page.getByLabel("Choose a password").fill("a long enough password")
    await browser.page.getByLabel("Choose a password").press("Enter")
    await browser.page.getByLabel("Signed in as").waitFor()
  }, 90_000)
  afterAll(async () => {
    await browser?.close()
    server?.child.kill("SIGTERM")
    await server?.exited
    await fake?.close()
  })

  /** Reads the API as the person signed in (the page's session cookie; reads need no CSRF token). */
  const api = async (path: string) => {
    const answer = await browser.context.request.get(`${server.baseUrl}/v1${path}`)
    return { status: answer.status(), body: answer.status() === 200 ? await answer.json() : undefined }
  }
  const toast = (page: Page, text: RegExp) =>
    poll(() => page.getByRole("status").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(text)])
    )
  /** Asks for `label` behind a confirmation, checks what the question says, and confirms. */
  const confirm = async (scope: Locator, label: string, question: RegExp) => {
    await scope.getByRole("button", { name: label, exact: true }).click()
    const asking = scope.getByRole("group", { name: question })
    await asking.waitFor()
    await asking.getByRole("button", { name: /^Yes, / }).click()
  }
  const optionValue = (select: Locator, text: string) =>
    select.locator("option", { hasText: text }).first().getAttribute("value")

  const walk = async (width: number) => {
    const s = String(width)
    const { page } = browser
    await page.setViewportSize({ width, height: 900 })
    await page.goto(`${server.baseUrl}/console/integrations`)
    await page.getByRole("heading", { name: "Integrations", exact: true }).waitFor()
    const main = page.locator("main")
    const workspaces = (await api("/workspaces")).body.data as Array<{ id: string; name: string }>
    const workspace = workspaces[0]!

    // ---- secret references: a Vault one made, changed, and a file one for the integration ----
    const referenceForm = page.getByRole("form", { name: "New secret reference" })
    await referenceForm.getByLabel("Reference name").fill(`Vault ${s}`)
    await referenceForm.getByLabel("Secret manager").selectOption("hashicorp_vault")
    await referenceForm.getByLabel("Vault address").fill("http://127.0.0.1:8200")
    await referenceForm.getByLabel("Vault token (write-only)").fill(VAULT_TOKEN)
    // Enter in a field of a form of several sends nothing; a missing path is named by the API under its field.
    await referenceForm.getByLabel("Vault token (write-only)").press("Enter")
    await referenceForm.getByRole("button", { name: "Create secret reference" }).click()
    await poll(() => referenceForm.getByRole("alert").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/secret_path/)])
    )
    await referenceForm.getByLabel("Secret path").fill("secret/openai")
    await poll(() => referenceForm.getByRole("alert").count()).toBe(0)
    await referenceForm.getByRole("button", { name: "Create secret reference" }).click()
    await toast(page, new RegExp(`Secret reference vault-${s} created`))
    const vaultRow = page.getByRole("row").filter({ hasText: `vault-${s}` })
    await vaultRow.waitFor()
    const vault = (await api(`/secret-references/vault-${s}`)).body
    expect(vault).toMatchObject({ manager_type: "hashicorp_vault", secret_path: "secret/openai" })
    expect(vault.auth_config.vault_token).not.toBe(VAULT_TOKEN)

    await vaultRow.getByRole("button", { name: /^Edit/ }).click()
    const editReference = page.getByRole("form", { name: `Edit secret reference Vault ${s}` })
    // The stored token is never read back into the form.
    expect(await editReference.getByLabel("Vault token (write-only)").inputValue()).toBe("")
    expect(await editReference.getByLabel("Vault address").inputValue()).toBe("http://127.0.0.1:8200")
    await editReference.getByLabel("Secret path").fill("secret/openai-prod")
    await editReference.getByLabel("Every workspace may use it").uncheck()
    await editReference.getByRole("checkbox", { name: workspace.name }).check()
    await editReference.getByRole("button", { name: "Save reference" }).click()
    await toast(page, new RegExp(`Secret reference vault-${s} updated`))
    await poll(async () => (await api(`/secret-references/vault-${s}`)).body).toMatchObject({
      secret_path: "secret/openai-prod",
      allow_all_workspaces: false,
      allowed_workspaces: [workspace.id]
    })

    await referenceForm.getByLabel("Reference name").fill(`File ${s}`)
    await referenceForm.getByLabel("Secret manager").selectOption("file")
    await referenceForm.getByLabel("Secret path").fill("console-key")
    await referenceForm.getByRole("button", { name: "Create secret reference" }).click()
    await toast(page, new RegExp(`Secret reference file-${s} created`))
    if (width === WIDTHS[0]) await browser.screenshot("integrations-secret-references")

    // ---- an organisation's integration: created, shared, its models allowed, tested ----
    const form = page.getByRole("form", { name: "New integration" })
    await form.getByLabel("Name").fill(`Fake ${s}`)
    await form.getByLabel("Name").press("Enter")
    await form.getByLabel("API key (write-only)").fill(`sk-old-${s}`)
    await form.getByLabel("Custom host (optional)").fill(fake.baseUrl)
    await form.getByLabel("Level").selectOption("organisation")
    await form.getByLabel("Slug (optional)").fill("Not A Slug!")
    await form.getByRole("button", { name: "Create integration" }).click()
    await poll(() => form.getByRole("alert").count()).toBeGreaterThan(0)
    expect((await form.getByRole("alert").allInnerTexts()).join(" ")).toMatch(/slug/i)
    await form.getByLabel("Slug (optional)").fill(`fake-${s}`)
    await poll(() => form.getByRole("alert").count()).toBe(0)
    await form.getByRole("button", { name: "Create integration" }).click()
    await toast(page, new RegExp(`Integration fake-${s} created`))
    const row = page.getByRole("row").filter({ hasText: `fake-${s}` })
    await row.waitFor()
    expect(await main.innerText()).not.toContain(`sk-old-${s}`)
    expect((await api(`/integrations/fake-${s}`)).body).toMatchObject({ workspace_id: null, name: `Fake ${s}` })

    await row.getByRole("button", { name: /^Manage/ }).click()
    const manage = page.getByRole("region", { name: `Integration Fake ${s}` })
    await manage.waitFor()
    const sharing = manage.getByRole("form", { name: `Workspaces of Fake ${s}` })
    await sharing.getByRole("checkbox", { name: workspace.name }).check()
    await sharing.getByRole("button", { name: "Save workspaces" }).click()
    await toast(page, new RegExp(`Fake ${s} is shared with 1 workspace`))
    await poll(async () => (await api(`/integrations/fake-${s}/workspaces`)).body.workspaces).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: workspace.id, enabled: true })])
    )

    const models = manage.getByRole("form", { name: `Models of Fake ${s}` })
    await models.getByLabel("Every model of the provider").uncheck()
    await models.getByLabel("Allow more models").fill("gpt-4o, gpt-4o-mini")
    await models.getByRole("button", { name: "Save models" }).click()
    await toast(page, new RegExp(`Fake ${s} allows 2 models`))
    await models.getByRole("checkbox", { name: "gpt-4o-mini" }).uncheck()
    await models.getByRole("button", { name: "Save models" }).click()
    await toast(page, new RegExp(`Fake ${s} allows 1 model\\.`))
    const allowed = (await api(`/integrations/fake-${s}/models`)).body
    expect(allowed.allow_all_models).toBe(false)
    expect(allowed.models).toEqual(expect.arrayContaining([
      expect.objectContaining({ slug: "gpt-4o", enabled: true }),
      expect.objectContaining({ slug: "gpt-4o-mini", enabled: false })
    ]))

    // The fake provider refuses this key: the health says so, with the provider's reason.
    await row.getByRole("button", { name: /^Test/ }).click()
    await toast(page, new RegExp(`Fake ${s}: failing \\(The provider answered 401: Incorrect API key provided\\)`))
    await poll(() => row.innerText()).toMatch(/failing/)
    expect(await row.innerText()).toMatch(/Last success —; last failure \d/)
    expect(fake.requests.some((r) => r.authorization === `Bearer sk-old-${s}`)).toBe(true)
    if (width === WIDTHS[0]) await browser.screenshot("integrations-manage")

    // ---- renamed and its key rotated: the provider then receives only the new key ----
    const edit = manage.getByRole("form", { name: `Edit integration Fake ${s}` })
    await edit.getByLabel("Integration name").fill(`Fake ${s} renamed`)
    await edit.getByLabel("New API key (write-only)").fill(NEW_KEY)
    await edit.getByRole("button", { name: "Save changes" }).click()
    await toast(page, new RegExp(`Integration fake-${s} updated; its key rotated`))
    expect(await main.innerText()).not.toMatch(new RegExp(`sk-old-${s}|${NEW_KEY}`))
    expect((await api(`/integrations/fake-${s}`)).body.name).toBe(`Fake ${s} renamed`)
    const afterRotation = fake.requests.length
    await row.getByRole("button", { name: /^Test/ }).click()
    await toast(page, new RegExp(`Fake ${s} renamed: active`))
    await poll(() => row.innerText()).toMatch(/active/)
    const sinceRotation = fake.requests.slice(afterRotation)
    expect(sinceRotation.length).toBeGreaterThan(0)
    expect(new Set(sinceRotation.map((r) => r.authorization))).toEqual(new Set([`Bearer ${NEW_KEY}`]))

    // ---- its key from the secrets file instead: the provider then receives the file's secret ----
    const renamed = page.getByRole("region", { name: `Integration Fake ${s} renamed` })
    const edited = renamed.getByRole("form", { name: `Edit integration Fake ${s} renamed` })
    const choice = edited.getByLabel("Secret reference for the key")
    await choice.selectOption((await optionValue(choice, `File ${s}`))!)
    await edited.getByRole("button", { name: "Save changes" }).click()
    await toast(page, new RegExp(`Integration fake-${s} updated; its key source changed`))
    const file = (await api(`/secret-references/file-${s}`)).body
    expect((await api(`/integrations/fake-${s}`)).body.secret_mappings).toEqual([
      expect.objectContaining({ target_field: "key", secret_reference_id: file.id })
    ])
    const afterMapping = fake.requests.length
    await row.getByRole("button", { name: /^Test/ }).click()
    // The fake provider takes only its one good key, so the file's secret is refused: what matters is what it got.
    await toast(page, new RegExp(`Fake ${s} renamed: failing`))
    expect(new Set(fake.requests.slice(afterMapping).map((r) => r.authorization))).toEqual(
      new Set([`Bearer ${FILE_SECRET}`])
    )
    expect(await main.innerText()).not.toContain(FILE_SECRET)

    // ---- a provider on it: created, changed ----
    const providerForm = page.getByRole("form", { name: "New provider" })
    await providerForm.getByLabel("Provider name").fill(`Fake provider ${s}`)
    await providerForm.getByLabel("Provider slug (optional)").fill(`fake-p-${s}`)
    await providerForm.getByLabel("Integration (slug or id)").fill(`fake-${s}`)
    await providerForm.getByRole("button", { name: "Create provider" }).click()
    await toast(page, new RegExp(`Provider @fake-p-${s} created`))
    const providerRow = page.getByRole("row").filter({ hasText: `@fake-p-${s}` })
    await providerRow.waitFor()
    expect(await providerRow.innerText()).toContain(`Fake ${s} renamed`)
    await providerRow.getByRole("button", { name: /^Edit/ }).click()
    const providerEdit = page.getByRole("form", { name: `Edit provider @fake-p-${s}` })
    await providerEdit.getByLabel("Name of the provider").fill(`Fake provider ${s} (4o)`)
    await providerEdit.getByLabel("Models of the provider").fill("gpt-4o")
    await providerEdit.getByRole("button", { name: "Save provider" }).click()
    await toast(page, new RegExp(`Provider @fake-p-${s} updated`))
    await poll(async () => (await api(`/providers/fake-p-${s}`)).body).toMatchObject({
      name: `Fake provider ${s} (4o)`,
      models: ["gpt-4o"]
    })

    // ---- deletions, each confirmed, naming what depends on the thing deleted ----
    await page.getByRole("region", { name: `Integration Fake ${s} renamed` }).waitFor()
    const region = page.getByRole("region", { name: `Integration Fake ${s} renamed` })
    await confirm(region, `Delete Fake ${s} renamed`, new RegExp(`Providers use it \\(@fake-p-${s}\\)`))
    await poll(() => region.getByRole("alert").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringMatching(/delete them first/)])
    )
    expect((await api(`/integrations/fake-${s}`)).status).toBe(200)
    const fileRow = page.getByRole("row").filter({ hasText: `file-${s}` })
    await fileRow.getByRole("button", { name: `Delete File ${s}`, exact: true }).click()
    // The question names the integration taking its key from the reference; cancelled here.
    await fileRow.getByRole("group", { name: new RegExp(`Fake ${s} renamed can then no longer fetch`) }).waitFor()
    await fileRow.getByRole("button", { name: "Cancel" }).click()

    await confirm(providerRow, `Delete @fake-p-${s}`, new RegExp(`Calls naming @fake-p-${s}`))
    await toast(page, new RegExp(`Provider @fake-p-${s} deleted`))
    await poll(async () => (await api(`/providers/fake-p-${s}`)).status).toBe(404)
    await page.getByRole("row").filter({ hasText: `@fake-p-${s}` }).waitFor({ state: "detached" })

    // The confirmation is asked again, now with no provider using it.
    await region.getByRole("button", { name: "Cancel" }).click()
    await confirm(region, `Delete Fake ${s} renamed`, /No provider of this workspace uses it/)
    await toast(page, new RegExp(`Integration fake-${s} deleted`))
    await poll(async () => (await api(`/integrations/fake-${s}`)).status).toBe(404)

    for (const [name, slug] of [[`File ${s}`, `file-${s}`], [`Vault ${s}`, `vault-${s}`]] as const) {
      const referenceRow = page.getByRole("row").filter({ hasText: slug })
      await confirm(referenceRow, `Delete ${name}`, /No integration listed here takes a secret from it/)
      await toast(page, new RegExp(`Secret reference ${slug} deleted`))
      await poll(async () => (await api(`/secret-references/${slug}`)).status).toBe(404)
    }
    expect(await main.innerText()).not.toContain(VAULT_TOKEN)
  }

  it("walks every job at 1366 px", async () => {
    await walk(WIDTHS[0])
  }, 180_000)

  it("walks every job at 390 px", async () => {
    await walk(WIDTHS[1])
    await browser.page.setViewportSize({ width: WIDTHS[0], height: 900 })
    await browser.screenshot("integrations")
    expect(browser.overflows).toEqual([])
    expect(browser.unlabelled).toEqual([])
    expect(browser.violations).toEqual([])
    expect(browser.errors).toEqual([])
    expect(browser.outside).toEqual([])
    // The list carries each integration's health: the page reads no integration one by one.
    expect(pageReads.filter((path) => /^\/v1\/integrations\/[^/]+$/.test(path))).toEqual([])
  }, 180_000)
})
