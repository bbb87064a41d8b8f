/**
 * How the console calls the API: only the public JSON API under `/v1`, either with the signed-in key in
 * `x-service-api-key` (no cookie sent), or, for a person signed in, with the session cookie (same origin only)
 * and the session's CSRF token in `x-csrf-token` on every change; a refusal turned into an `ApiError` that
 * names its `param`. The calls themselves are
 * in `../api.ts` and, by resource, beside this file. Each names its endpoint (`get<"workspaces", "list">`), whose
 * method, path, body and answer are typed from the API definition (`contract.ts`).
 */
import type { Answer, Body, EndpointName, Group, Method, PathOf } from "./contract.ts"

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  readonly param: string | null
  constructor(status: number, code: string, message: string, param: string | null) {
    super(message)
    this.status = status
    this.code = code
    this.param = param
  }
}

/** How calls say who makes them: a key, a person's session (its cookie, which the browser holds), or nothing yet. */
type Credential =
  | { readonly kind: "key"; readonly key: string }
  | { readonly kind: "session"; readonly csrfToken: string | null; readonly workspaceId: string | null }

let credential: Credential | null = null
let onUnauthenticated: (error: ApiError) => void = () => {}

/** The key sent with every call; `session.ts` sets it. */
export const useKey = (key: string | null, unauthenticated?: (error: ApiError) => void) => {
  credential = key === null ? null : { kind: "key", key }
  if (unauthenticated !== undefined) onUnauthenticated = unauthenticated
}

/**
 * Calls go with the session cookie, changes with `csrfToken` (from sign-in or `GET /v1/me`); a member names the
 * workspace they act in (`x-gateway-workspace`). `session.ts` sets it.
 */
export const useSession = (
  csrfToken: string | null,
  workspaceId: string | null,
  unauthenticated?: (error: ApiError) => void
) => {
  credential = { kind: "session", csrfToken, workspaceId }
  if (unauthenticated !== undefined) onUnauthenticated = unauthenticated
}

/** The code of the error a call fails with when the server cannot be reached (no answer at all). */
export const NETWORK_ERROR = "network_error"

const SAFE_METHODS = new Set(["GET", "HEAD"])

export type Query = Readonly<Record<string, string | number | boolean | null | undefined>>

const withQuery = (path: string, query: Query | undefined) => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value))
  }
  const text = params.toString()
  return text === "" ? path : `${path}?${text}`
}

/** An answer with its headers, for the calls that read one. */
export interface Reply<A> {
  readonly body: A
  readonly headers: Headers
}

/**
 * How a call with `method` says who makes it: its credential headers, and whether the cookie goes with it. Calls
 * the console reads as they arrive (a streamed completion) are made with it outside `call`.
 */
export const callingAs = (method: string): { headers: Record<string, string>; credentials: RequestCredentials } => {
  const headers: Record<string, string> = {}
  if (credential?.kind === "key") headers["x-service-api-key"] = credential.key
  if (credential?.kind === "session") {
    if (credential.csrfToken !== null && !SAFE_METHODS.has(method)) headers["x-csrf-token"] = credential.csrfToken
    if (credential.workspaceId !== null) headers["x-gateway-workspace"] = credential.workspaceId
  }
  // A key is the whole credential: no cookie goes with it. Without one, the session cookie does.
  return { headers, credentials: credential?.kind === "key" ? "omit" : "same-origin" }
}

/** A refusal's `ApiError`, from its status and body text (the envelope, when it is one). */
export const refusalOf = (status: number, text: string): ApiError => {
  let parsed: unknown = null
  try {
    parsed = text === "" ? null : JSON.parse(text)
  } catch {
    // not the envelope: a provider's answer passed through
  }
  const envelope = (parsed as { error?: { code?: string; message?: string; param?: string | null } } | null)?.error
  const error = new ApiError(
    status,
    envelope?.code ?? "error",
    envelope?.message ?? (text.trim() === "" ? `The server answered ${status}.` : `${status}: ${text.slice(0, 500)}`),
    envelope?.param ?? null
  )
  // Only the gateway's own 401 (its envelope says `success: false`) ends the session: a provider's passes through.
  if (status === 401 && (parsed as { success?: unknown } | null)?.success === false) onUnauthenticated(error)
  return error
}

const call = async (method: string, path: string, body: unknown, query: Query | undefined): Promise<Reply<unknown>> => {
  const { credentials, headers } = callingAs(method)
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(withQuery(`/v1${path}`, query), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials,
    cache: "no-store"
  }).catch(() => {
    // fetch fails only when no answer came (offline, server down, connection cut): said plainly, to retry.
    throw new ApiError(0, NETWORK_ERROR, "The server could not be reached. Check the connection and retry.", null)
  })
  const text = await response.text()
  if (!response.ok) throw refusalOf(response.status, text)
  return { body: text === "" ? null : JSON.parse(text), headers: response.headers }
}

/** The body argument of a call: required when the endpoint takes one, absent when it takes none. */
type BodyArgument<G extends Group, E extends EndpointName<G>> = [Body<G, E>] extends [never] ? []
  : [body: Body<G, E>]

/** Calls endpoint `E` of group `G` and answers its body and headers. */
export const request = async <G extends Group, E extends EndpointName<G>>(
  method: Method<G, E>,
  path: PathOf<G, E>,
  ...body: BodyArgument<G, E>
): Promise<Reply<Answer<G, E>>> => (await call(method, path, body[0], undefined)) as Reply<Answer<G, E>>

/** Reads with `GET` endpoint `E` of group `G`. */
export const get = async <G extends Group, E extends EndpointName<G>>(
  path: Method<G, E> extends "GET" ? PathOf<G, E> : never,
  query?: Query
): Promise<Answer<G, E>> => (await call("GET", path, undefined, query)).body as Answer<G, E>

/** Changes something with endpoint `E` of group `G`: its method, its path, and its body if it takes one. */
export const send = async <G extends Group, E extends EndpointName<G>>(
  method: Method<G, E>,
  path: PathOf<G, E>,
  ...body: BodyArgument<G, E>
): Promise<Answer<G, E>> => (await request<G, E>(method, path, ...body)).body

export const segment = encodeURIComponent

export interface Paging {
  readonly page_size: number
  readonly current_page: number
}

/** What a paged table shows: a page of a list answer, and whether there are more. */
export interface ListPage<A> {
  readonly data: ReadonlyArray<A>
  readonly total: number
  readonly has_more: boolean
}

/** The item of a list answer. */
export type Item<L extends { readonly data: ReadonlyArray<unknown> }> = L["data"][number]

/** A JSON object whose shape the console does not read (a rendered body, a config). */
export type Json = Readonly<Record<string, unknown>>
