/** The trust policies' calls: list, create, delete (token exchange for workloads). */
import { get, type Item, type Paging, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type TrustPolicy = Item<Answer<"trustPolicies", "list">>
export type NewTrustPolicy = Body<"trustPolicies", "create">

export const listTrustPolicies = (paging: Paging) =>
  get<"trustPolicies", "list">("/admin/trust-policies", { ...paging })
export const createTrustPolicy = (body: NewTrustPolicy) =>
  send<"trustPolicies", "create">("POST", "/admin/trust-policies", body)
export const deleteTrustPolicy = (id: string) =>
  send<"trustPolicies", "delete">("DELETE", `/admin/trust-policies/${segment(id)}`)
