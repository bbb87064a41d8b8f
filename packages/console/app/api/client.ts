/**
 * How the console calls the API: only the public JSON API under `/v1`, with the signed-in key in
 * `x-service-api-key`, and a refusal turned into an `ApiError` that names its `param`. The calls themselves are
 * in `../api.ts` and, by resource, beside this file.
 */

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

let currentKey: string | null = null
let onUnauthenticated: (error: ApiError) => void = () => {}

/** The key sent with every call; `session.ts` sets it. */
export const useKey = (key: string | null, unauthenticated?: (error: ApiError) => void) => {
  currentKey = key
  if (unauthenticated !== undefined) onUnauthenticated = unauthenticated
}

export type Query = Readonly<Record<string, string | number | boolean | null | undefined>>

const withQuery = (path: string, query: Query | undefined) => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value))
  }
  const text = params.toString()
  return text === "" ? path : `${path}?${text}`
}

interface Answer<A> {
  readonly body: A
  readonly headers: Headers
}

export const request = async <A>(method: string, path: string, body?: unknown, query?: Query): Promise<Answer<A>> => {
  const headers: Record<string, string> = {}
  if (currentKey !== null) headers["x-service-api-key"] = currentKey
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(withQuery(`/v1${path}`, query), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "omit",
    cache: "no-store"
  })
  const text = await response.text()
  const parsed: unknown = text === "" ? null : JSON.parse(text)
  if (!response.ok) {
    const envelope = (parsed as { error?: { code?: string; message?: string; param?: string | null } } | null)?.error
    const error = new ApiError(
      response.status,
      envelope?.code ?? "error",
      envelope?.message ?? `The server answered ${response.status}.`,
      envelope?.param ?? null
    )
    if (response.status === 401) onUnauthenticated(error)
    throw error
  }
  return { body: parsed as A, headers: response.headers }
}

export const get = async <A>(path: string, query?: Query) => (await request<A>("GET", path, undefined, query)).body
export const send = async <A>(method: "POST" | "PUT" | "DELETE", path: string, body?: unknown) =>
  (await request<A>(method, path, body)).body
export const segment = encodeURIComponent

export interface Paging {
  readonly page_size: number
  readonly current_page: number
}

export interface ListPage<A> {
  readonly data: ReadonlyArray<A>
  readonly total: number
  readonly has_more: boolean
}

export type Json = Readonly<Record<string, unknown>>
