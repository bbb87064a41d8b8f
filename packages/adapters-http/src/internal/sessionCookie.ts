/**
 * The session cookie, its one definition: how it is named, written, cleared and read, and what a request made
 * with it must carry to change anything (CSRF: a matching `x-csrf-token` header, and an `Origin` or `Referer`
 * of the gateway's own origin). Password sign-in (groups/sessions) and sign-in by an identity provider use it.
 *
 * The cookie is `HttpOnly`, `SameSite=Lax`, `Path=/`; over HTTPS (the request's own, or a trusted proxy's
 * `X-Forwarded-Proto`, or a `PUBLIC_URL` of https) also `Secure` and named with the `__Host-` prefix, which
 * browsers hold to exactly that (no `Domain`, path `/`, secure only).
 */
import type { HttpServerRequest } from "effect/http"
import { timingSafeEqual } from "node:crypto"
import { makeForwardedHttps, type TrustProxy } from "../ClientAddress.ts"

export const SESSION_COOKIE = "gwc_session"
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`
export const CSRF_HEADER = "x-csrf-token"
/**
 * The sign-in flow's cookie: the `state` a browser was sent to its identity provider with, so that the callback
 * is taken only from the browser that started the flow. Without it, someone could start a flow, sign in at the
 * provider as themselves and hand the callback link to another person, who would then be signed in to the
 * gateway as them (login CSRF); `state` alone, kept only on the server, does not tell the browsers apart.
 */
export const FLOW_COOKIE = "gwc_oidc_flow"
export const SECURE_FLOW_COOKIE = `__Host-${FLOW_COOKIE}`

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

export interface SessionCookieOptions {
  readonly trustProxy?: TrustProxy | undefined
  /** The gateway's external base URL (`PUBLIC_URL`): its origin is the one state-changing requests must come from. */
  readonly publicUrl?: string | undefined
}

const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (header === undefined) return undefined
  for (const part of header.split(";")) {
    const at = part.indexOf("=")
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

const originOf = (url: string): string | undefined => {
  try {
    const parsed = new URL(url)
    return parsed.origin === "null" ? undefined : parsed.origin
  } catch {
    return undefined
  }
}

export const makeSessionCookies = (options: SessionCookieOptions) => {
  const forwardedHttps = makeForwardedHttps(options.trustProxy)
  const publicOrigin = options.publicUrl === undefined ? undefined : originOf(options.publicUrl)
  const publicHttps = publicOrigin?.startsWith("https:") === true

  /** Did the request come over HTTPS, as far as the gateway can tell? */
  const isHttps = (request: HttpServerRequest.HttpServerRequest): boolean =>
    publicHttps || forwardedHttps(request) || request.url.startsWith("https:")

  /** The `Set-Cookie` value that hands the browser a session token. */
  const setCookie = (request: HttpServerRequest.HttpServerRequest, token: string, maxAgeSeconds: number) =>
    isHttps(request)
      ? `${SECURE_SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=${maxAgeSeconds}`
      : `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}`

  /** The `Set-Cookie` value of a new session: its token, for as long as the session may last. */
  const newSessionCookie = (
    request: HttpServerRequest.HttpServerRequest,
    opened: { readonly token: string; readonly session: { readonly expires_at: string } }
  ) =>
    setCookie(
      request,
      opened.token,
      Math.max(1, Math.floor((Date.parse(opened.session.expires_at) - Date.now()) / 1000))
    )

  /** The `Set-Cookie` value that removes it. */
  const clearCookie = (request: HttpServerRequest.HttpServerRequest) =>
    isHttps(request)
      ? `${SECURE_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0`
      : `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`

  /** The session token the request carries, if any (the `__Host-` one first). */
  const tokenOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
    const header = request.headers.cookie
    const token = cookieValue(header, SECURE_SESSION_COOKIE) ?? cookieValue(header, SESSION_COOKIE)
    return token === undefined || token.length === 0 ? undefined : token
  }

  /** The gateway's own origin: `PUBLIC_URL`'s, else the scheme and `Host` the request came to. */
  const expectedOrigin = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
    if (publicOrigin !== undefined) return publicOrigin
    const host = request.headers.host
    return host === undefined ? undefined : originOf(`${isHttps(request) ? "https" : "http"}://${host}`)
  }

  /**
   * Why a request may not use a cookie the browser sent on its own: it comes from another origin (or says
   * none), or lacks the session's CSRF token. Undefined when it may; reads (GET, HEAD, OPTIONS) always may.
   * `csrfToken` undefined checks the origin alone (sign-in, which has no session yet).
   */
  const crossSiteRefusal = (
    request: HttpServerRequest.HttpServerRequest,
    csrfToken: string | undefined
  ): string | undefined => {
    if (SAFE_METHODS.has(request.method)) return undefined
    const expected = expectedOrigin(request)
    const origin = request.headers.origin ?? (request.headers.referer === undefined
      ? undefined
      : originOf(request.headers.referer))
    if (csrfToken !== undefined) {
      if (origin === undefined || expected === undefined || origin !== expected) {
        return `A change made with a session must come from the gateway's own origin (${
          expected ?? "unknown"
        }): the request's Origin (or Referer) is ${origin ?? "missing"}.`
      }
      const presented = request.headers[CSRF_HEADER]
      if (presented === undefined || !sameText(presented, csrfToken)) {
        return `A change made with a session needs the session's CSRF token in the ${CSRF_HEADER} header (from sign-in or GET /v1/me).`
      }
      return undefined
    }
    return origin !== undefined && expected !== undefined && origin !== expected
      ? `Sign-in must come from the gateway's own origin (${expected}), not ${origin}.`
      : undefined
  }

  /** The cookie's name and options for a flow's `state`, living as long as the flow (`SameSite=Lax`: the provider's
   * redirect back is a top-level GET, which carries it). */
  const flowCookie = (request: HttpServerRequest.HttpServerRequest, maxAgeSeconds: number) => {
    const secure = isHttps(request)
    return {
      name: secure ? SECURE_FLOW_COOKIE : FLOW_COOKIE,
      options: {
        path: "/",
        httpOnly: true,
        sameSite: "lax" as const,
        secure,
        maxAge: `${maxAgeSeconds} seconds` as const
      }
    }
  }

  /** The `state` this browser was sent to its identity provider with, from its flow cookie; null without one. */
  const flowStateOf = (request: HttpServerRequest.HttpServerRequest): string | null => {
    const header = request.headers.cookie
    const kept = cookieValue(header, SECURE_FLOW_COOKIE) ?? cookieValue(header, FLOW_COOKIE)
    return kept === undefined || kept.length === 0 ? null : kept
  }

  return { isHttps, newSessionCookie, clearCookie, tokenOf, crossSiteRefusal, flowCookie, flowStateOf }
}

export type SessionCookies = ReturnType<typeof makeSessionCookies>
