/** The API keys' calls: list (with its filters), create, update, rotate and revoke. */
import { get, type Item, type Paging, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type ApiKey = Item<Answer<"apiKeys", "list">>
/** A rotated key, with its new secret: the only answer that holds it. */
export type RotatedApiKey = Answer<"apiKeys", "rotate">
export type KeyType = ApiKey["type"]
export type RateLimit = ApiKey["rate_limits"][number]
/** The windows a limit counts over: a second, a minute, an hour, a day. */
export type RateLimitUnit = RateLimit["unit"]

export interface ApiKeyFilters {
  readonly workspace_id?: string | undefined
  readonly status?: string | undefined
  readonly type?: string | undefined
  /** A part of the name, in any case. */
  readonly name?: string | undefined
}

/** `kind` is the path's `{type}/{sub-type}`: `organisation/service`, `workspace/service` or `workspace/user`. */
export const createApiKey = (kind: `${string}/${string}`, body: Body<"apiKeys", "create">) =>
  send<"apiKeys", "create">("POST", `/api-keys/${kind}`, body)
export const listApiKeys = (filters: ApiKeyFilters, paging: Paging) =>
  get<"apiKeys", "list">("/api-keys", { ...filters, ...paging })
/** Name, description, expiry (null clears either) and rate limits; only the fields given change. */
export const updateApiKey = (id: string, body: Body<"apiKeys", "update">) =>
  send<"apiKeys", "update">("PUT", `/api-keys/${segment(id)}`, body)
/** A new secret; the old one keeps working for `transitionPeriodMs` (the API's default, 30 minutes, when absent). */
export const rotateApiKey = (id: string, transitionPeriodMs: number | undefined) =>
  send<"apiKeys", "rotate">(
    "POST",
    `/api-keys/${segment(id)}/rotate`,
    transitionPeriodMs === undefined ? {} : { transition_period_ms: transitionPeriodMs }
  )
export const revokeApiKey = (id: string) => send<"apiKeys", "revoke">("DELETE", `/api-keys/${segment(id)}`)
