/**
 * Headless Chromium for the console's tests: Debian's `chromium` driven by playwright-core, with the flags that
 * keep it off the network (without them it calls Google's services at start). Absent, the tests are skipped with
 * one loud line, or fail when `REQUIRE_BROWSER=1` (set by `.ci/run`).
 *
 * A session records every request the page makes and aborts any that is not for the server under test, and
 * collects what the page logs as an error, so a test can assert that nothing left 127.0.0.1 and nothing failed.
 * What every console test file shares besides: steps that build on each other (`browserSteps`), the admin key's
 * calls to the API (`adminApi`), and the end of a run (`stopAll`).
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { it } from "vitest"
import type { ServerProcess } from "./ServerProcess.ts"

export const CHROMIUM = "/usr/bin/chromium"

/** `.ci/run` installs it; a developer without it is told once, loudly. */
export const browserAvailable = (): boolean => {
  if (existsSync(CHROMIUM)) return true
  if (process.env.REQUIRE_BROWSER === "1") {
    throw new Error(`REQUIRE_BROWSER=1 but ${CHROMIUM} is missing (apt-get install chromium)`)
  }
  console.warn(
    `\n*** console browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install chromium; REQUIRE_BROWSER=1 fails instead) ***\n`
  )
  return false
}

/** The machine's notes for Debian's Chromium as root; playwright adds `--headless` itself. */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage"
]

/** Where the tests write screenshots for people to look at; git ignores it. */
export const SCREENSHOTS = fileURLToPath(new URL("../../../../screenshots/console/", import.meta.url))

export const WIDTHS = [1366, 390] as const

/** axe-core's browser script, evaluated in the page through the debugging protocol (the console's CSP allows no inline script). */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** What axe finds, as `<page>@<width>: <rule> (<impact>) <target>…`: only the serious and critical violations. */
export const axeViolations = async (page: Page, name: string, width: number): Promise<Array<string>> => {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(AXE)
  const found = await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => v.id + " (" + v.impact + ") " + v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")))`)
  return (found as Array<string>).map((v) => `${name}@${width}: ${v}`)
}

export interface BrowserSession {
  readonly browser: Browser
  readonly context: BrowserContext
  readonly page: Page
  /** Every URL the page asked for, in order. */
  readonly requests: Array<string>
  /** Requests for anywhere but the server under test (and the origins it was told to allow): aborted, and listed here. */
  readonly outside: Array<string>
  /** Errors the page logged or threw, but the browser's own notes of API answers >= 400 (those are expected). */
  readonly errors: Array<string>
  /**
   * Screenshots of the page as it is now, at each width, as `<name>-<width>.png`; checks it on the way (kept in
   * `overflows`, `violations` and `unlabelled`) and answers what it found on this page.
   */
  readonly screenshot: (name: string) => Promise<ReadonlyArray<string>>
  /** Pages that needed sideways scrolling at a width, as `<name>@<width>: <pixels>`. */
  readonly overflows: Array<string>
  /** axe-core's serious and critical violations on each page screenshot() saw, at each width and colour scheme. */
  readonly violations: Array<string>
  /** Form controls with no label, as `<name>: <control>`, found on each page screenshot() saw. */
  readonly unlabelled: Array<string>
  readonly close: () => Promise<void>
}

/**
 * `also`: other origins the page may reach besides the server's (an identity provider on 127.0.0.1 that the
 * browser is sent to while signing in); any other request is aborted and listed in `outside`.
 */
export const openBrowser = async (baseUrl: string, also: ReadonlyArray<string> = []): Promise<BrowserSession> => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS })
  const context = await browser.newContext({ viewport: { width: WIDTHS[0], height: 900 } })
  // A step waits at most this long for the page; a missing element fails it well before the test's own limit.
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const requests: Array<string> = []
  const outside: Array<string> = []
  const errors: Array<string> = []
  const origin = new URL(baseUrl).origin
  const allowed = new Set([origin, ...also.map((url) => new URL(url).origin)])
  await context.route("**/*", (route) => {
    const url = route.request().url()
    requests.push(url)
    if (allowed.has(new URL(url).origin)) return route.continue()
    outside.push(url)
    return route.abort("blockedbyclient")
  })
  page.on("console", (message) => {
    if (message.type() !== "error") return
    // Chromium notes every answer >= 400 in the console; the API's refusals are part of the flows tested.
    const apiAnswer = message.text().startsWith("Failed to load resource: the server responded with a status of 4") &&
      message.location().url.startsWith(`${origin}/v1/`)
    if (!apiAnswer) errors.push(`${message.text()} (${message.location().url})`)
  })
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`))
  mkdirSync(SCREENSHOTS, { recursive: true })
  const overflows: Array<string> = []
  const unlabelled: Array<string> = []
  const violations: Array<string> = []
  const screenshot = async (name: string) => {
    const before = [overflows.length, violations.length, unlabelled.length] as const
    const controls = await page.evaluate(`[...document.querySelectorAll("input, select, textarea")]
      .filter((c) => c.labels.length === 0 && !c.getAttribute("aria-label") && !c.getAttribute("aria-labelledby"))
      .map((c) => c.outerHTML.slice(0, 80))`) as Array<string>
    unlabelled.push(...controls.map((c) => `${name}: ${c}`))
    const viewport = page.viewportSize() ?? { width: WIDTHS[0], height: 900 }
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 })
      // Evaluated in the page, where the DOM is (the tests' own types have none).
      const overflow = Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))
      if (overflow > 0) overflows.push(`${name}@${width}: ${overflow}`)
      violations.push(...await axeViolations(page, name, width))
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: WIDTHS[0], height: 900 })
    // The dark theme follows the system's preference: its contrast is checked too, at the wide width.
    await page.emulateMedia({ colorScheme: "dark" })
    violations.push(...await axeViolations(page, `${name} (dark)`, WIDTHS[0]))
    await page.screenshot({ path: join(SCREENSHOTS, `${name}-dark-${WIDTHS[0]}.png`), fullPage: true })
    await page.emulateMedia({ colorScheme: "light" })
    await page.setViewportSize(viewport)
    return [
      ...overflows.slice(before[0]).map((o) => `scrolls sideways: ${o}`),
      ...violations.slice(before[1]),
      ...unlabelled.slice(before[2]).map((u) => `unlabelled: ${u}`)
    ]
  }
  return {
    browser,
    context,
    page,
    requests,
    outside,
    errors,
    overflows,
    unlabelled,
    violations,
    screenshot,
    close: () => browser.close()
  }
}

/**
 * Steps of one walk, which build on each other: after one fails the rest are skipped rather than each waiting
 * to time out, and the failed one leaves a picture of the page (`failed-<prefix>-<step>.png`) beside the others.
 */
export const browserSteps = (prefix: string, page: () => Page | undefined, timeout = 120_000) => {
  let failed = false
  return (name: string, body: () => Promise<void> | void) =>
    it(name, async (context) => {
      if (failed) return context.skip()
      try {
        await body()
      } catch (error) {
        failed = true
        await page()?.screenshot({
          path: join(SCREENSHOTS, `failed-${prefix}-${name.slice(0, 40).replace(/\W+/g, "-")}.png`),
          fullPage: true
        }).catch(() => undefined)
        throw error
      }
    }, timeout)
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** A call to the API with the first start's admin key (or `key`): its status, and its body parsed when JSON. */
export const adminApi =
  (server: () => ServerProcess) => async (method: string, path: string, body?: unknown, key = server().adminKey!) => {
    const response = await fetch(`${server().baseUrl}${path}`, {
      method,
      headers: { "x-service-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    const text = await response.text()
    return { status: response.status, text, body: parsed(text) }
  }

/** The end of a walk: the browser closed, then each server stopped and waited for. */
export const stopAll = async (
  browser: BrowserSession | undefined,
  ...servers: ReadonlyArray<ServerProcess | undefined>
) => {
  await browser?.close()
  for (const server of servers) {
    server?.child.kill("SIGTERM")
    await server?.exited
  }
}
