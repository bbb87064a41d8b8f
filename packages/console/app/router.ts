/**
 * Routing by URL path under `/console`, with the History API: links are real links (they open in a new tab,
 * and the keyboard follows them), and a click on one inside the console changes the page without a reload.
 */
import { signal } from "@preact/signals"

export const BASE = "/console"

/** The path under `/console`, e.g. `/prompts/abc`; `/` for the console itself. */
export const route = signal(location.pathname.slice(BASE.length) || "/")
/** The query of the current URL, for pages that keep their filters in it. */
export const query = signal(new URLSearchParams(location.search))

const update = () => {
  route.value = location.pathname.slice(BASE.length) || "/"
  query.value = new URLSearchParams(location.search)
}

export const href = (path: string) => `${BASE}${path}`

export const navigate = (path: string, options: { readonly replace?: boolean } = {}) => {
  const url = href(path)
  if (options.replace === true) history.replaceState(null, "", url)
  else history.pushState(null, "", url)
  update()
  window.scrollTo(0, 0)
}

addEventListener("popstate", update)

document.addEventListener("click", (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return
  const link = (event.target as Element | null)?.closest("a")
  if (link === null || link === undefined || link.target !== "" || link.origin !== location.origin) return
  if (!link.pathname.startsWith(BASE)) return
  event.preventDefault()
  navigate(`${link.pathname.slice(BASE.length) || "/"}${link.search}`)
})

/** Matches `pattern` (`/prompts/:id`) against the current route; the named parts, or undefined. */
export const match = (pattern: string, path = route.value): Record<string, string> | undefined => {
  const want = pattern.split("/")
  const have = path.split("?")[0]!.split("/")
  if (want.length !== have.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < want.length; i++) {
    const part = want[i]!
    if (part.startsWith(":")) params[part.slice(1)] = decodeURIComponent(have[i]!)
    else if (part !== have[i]) return undefined
  }
  return params
}
