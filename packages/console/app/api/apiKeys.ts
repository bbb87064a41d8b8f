/** The API keys' calls: list (with its filters), create, update, rotate and revoke. */
import { get, type Json, type ListPage, type Paging, segment, send } from "./client.ts"

export type KeyType = "organisation-service" | "workspace-service" | "workspace-user"

/** The windows a limit counts over: a second, a minute, an hour, a day. */
export type RateLimitUnit = "rps" | "rpm" | "rph" | "rpd"

export interface RateLimit {
  readonly type: "requests"
  readonly unit: RateLimitUnit
  readonly value: number
}

export interface ApiKey {
  readonly id: string
  readonly type: KeyType
  readonly name: string
  readonly description: string | null
  readonly workspace_id: string | null
  readonly user_id: string | null
  readonly scopes: ReadonlyArray<string>
  readonly status: "active" | "revoked"
  readonly masked_key: string
  readonly created_at: string
  readonly created_by_user_id: string | null
  readonly created_by_api_key_id: string | null
  readonly last_updated_at: string
  readonly expires_at: string | null
  readonly rate_limits: ReadonlyArray<RateLimit>
  /** To the minute, and written at most once a minute per process: it may lag by that much. */
  readonly last_used_at: string | null
  readonly rotated_at: string | null
  /** Until when the secret before the last rotation still works. */
  readonly transition_ends_at: string | null
}

/** A rotated key, with its new secret: the only answer that holds it. */
export interface RotatedApiKey extends ApiKey {
  readonly key: string
}

export interface ApiKeyFilters {
  readonly workspace_id?: string | undefined
  readonly status?: string | undefined
  readonly type?: string | undefined
  /** A part of the name, in any case. */
  readonly name?: string | undefined
}

/** `kind` is the path's `{type}/{sub-type}`: `organisation/service`, `workspace/service` or `workspace/user`. */
export const createApiKey = (kind: string, body: Json) =>
  send<{ id: string; key: string }>("POST", `/api-keys/${kind}`, body)
export const listApiKeys = (filters: ApiKeyFilters, paging: Paging) =>
  get<ListPage<ApiKey>>("/api-keys", { ...filters, ...paging })
/** Name, description, expiry (null clears either) and rate limits; only the fields given change. */
export const updateApiKey = (id: string, body: Json) => send<ApiKey>("PUT", `/api-keys/${segment(id)}`, body)
/** A new secret; the old one keeps working for `transitionPeriodMs` (the API's default, 30 minutes, when absent). */
export const rotateApiKey = (id: string, transitionPeriodMs: number | undefined) =>
  send<RotatedApiKey>(
    "POST",
    `/api-keys/${segment(id)}/rotate`,
    transitionPeriodMs === undefined ? {} : { transition_period_ms: transitionPeriodMs }
  )
export const revokeApiKey = (id: string) => send<{ id: string }>("DELETE", `/api-keys/${segment(id)}`)
