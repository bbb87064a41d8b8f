/** The SCIM tokens' calls: list, create, revoke (provisioning by an identity provider at /scim/v2). */
import { get, type Item, type Paging, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type ScimToken = Item<Answer<"scimTokens", "list">>
export type NewScimToken = Body<"scimTokens", "create">

export const listScimTokens = (paging: Paging) => get<"scimTokens", "list">("/admin/scim-tokens", { ...paging })
export const createScimToken = (body: NewScimToken) => send<"scimTokens", "create">("POST", "/admin/scim-tokens", body)
export const revokeScimToken = (id: string) =>
  send<"scimTokens", "revoke">("DELETE", `/admin/scim-tokens/${segment(id)}`)
