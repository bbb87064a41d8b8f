/**
 * The one rule for URLs the service accepts: an MCP server's `url`, a custom host (stored on a virtual key
 * or a config, or given with a call), and a provider's base URL from the operator.
 *
 * - `HttpUrl`: an absolute http or https URL without credentials. Credentials in a URL end up in logs,
 *   listings and audit records; each resource has its own write-only place for secrets.
 * - `BaseUrl`: an `HttpUrl` without query or fragment, since the path of each call is appended to it.
 */
import { Schema } from "effect"

/** What is wrong with a URL, as words that follow the field's name in a message ("url must …"). */
export const HTTP_URL_PROBLEMS = {
  not_http_url: "must be an absolute http or https URL",
  credentials: "must not carry credentials (user:password@)",
  query_or_fragment: "must not have a query or fragment: it is a base URL, and each call's path is appended to it"
} as const
export type HttpUrlProblem = keyof typeof HTTP_URL_PROBLEMS

/** The URL, parsed, or what breaks the rule. Pure. */
export const parseHttpUrl = (text: string, kind: "url" | "base url" = "url"): URL | HttpUrlProblem => {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return "not_http_url"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "not_http_url"
  if (url.username !== "" || url.password !== "") return "credentials"
  if (kind === "base url" && (url.search !== "" || url.hash !== "")) return "query_or_fragment"
  return url
}

const urlCheck = (kind: "url" | "base url") =>
  Schema.makeFilter((text: string) => {
    const parsed = parseHttpUrl(text, kind)
    return parsed instanceof URL ? true : `The ${kind} ${HTTP_URL_PROBLEMS[parsed]}.`
  }, { expected: kind === "url" ? "an http(s) URL without credentials" : "an http(s) base URL" })

export const HttpUrl = Schema.String.check(urlCheck("url"))
export const BaseUrl = Schema.String.check(urlCheck("base url"))
