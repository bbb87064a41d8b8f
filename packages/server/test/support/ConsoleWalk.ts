/**
 * A person's way through the console, shared by the walks at 1366 and 390 px: the owner's first sign-in through
 * the link `serve` prints at its first start, the navigation (folded behind "Menu" below 760 px), and tables
 * that fit the screen.
 */
import type { Page } from "playwright-core"
import { expect } from "vitest"
import type { ServerProcess } from "./ServerProcess.ts"

/** Below this width the navigation folds behind "Menu" (the console's stylesheet). */
export const NARROW = 760

/** Polls with a deadline a loaded machine meets (vitest's default is one second). */
export const poll = <T>(read: () => T | Promise<T>, options: { readonly timeout?: number } = {}) =>
  expect.poll(read, { timeout: options.timeout ?? 15_000, interval: 100 })

/** Signs the owner in with the first-start link and a password; the console's first page is then shown. */
export const signInOwner = async (page: Page, server: ServerProcess, onInvite?: () => Promise<unknown>) => {
  const link = /set your password: (\S+)/.exec(server.stderr())?.[1]
  expect(link).toMatch(/\/console\/invite#/)
  await page.goto(link!)
  await page.getByRole("heading", { name: /^Join / }).waitFor()
  await onInvite?.()
  await page.getByLabel("Choose a password").fill("a long enough password")
  await page.getByRole("button", { name: "Accept and sign in" }).click()
  await page.getByRole("main").getByRole("heading", { level: 1 }).first().waitFor()
}

/** Follows a link of the navigation, opening the menu first on a narrow screen; waits for the page to load. */
export const go = async (page: Page, label: string) => {
  if ((page.viewportSize()?.width ?? NARROW) < NARROW) {
    const toggle = page.getByRole("button", { name: "Menu" })
    await toggle.click()
    expect(await toggle.getAttribute("aria-expanded")).toBe("true")
  }
  await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: label, exact: true }).click()
  await page.getByRole("main").getByRole("heading", { level: 1 }).first().waitFor()
  // The page has loaded once no skeleton is left.
  await poll(() => page.locator(".skeleton").count()).toBe(0)
}

/**
 * On the phone a table is one card a row, its buttons on screen; at no width does a table, or the page, scroll
 * sideways.
 */
export const tablesFit = async (page: Page) => {
  const scrolls = await page.evaluate(`[...document.querySelectorAll(".table-wrap")]
    .filter((w) => w.scrollWidth > w.clientWidth).length`)
  expect(scrolls).toBe(0)
  expect(Number(await page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))).toBe(0)
  if ((page.viewportSize()?.width ?? NARROW) < NARROW && (await page.locator("main table tr").count()) > 0) {
    expect(await page.evaluate("getComputedStyle(document.querySelector('main table tr')).display")).toBe("block")
  }
}
