/**
 * Secret references: where a secret lives in the organisation's own secret manager and how the gateway logs in
 * to fetch it. The secret's value is never answered; the login's secret fields come back masked.
 */
import { get, type Item, type Paging, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type SecretReferenceItem = Item<Answer<"secretReferences", "list">>
export type NewSecretReference = Body<"secretReferences", "create">
export type SecretReferenceChange = Body<"secretReferences", "update">
export type SecretManagerType = SecretReferenceItem["manager_type"]

export const listSecretReferences = (paging: Paging) =>
  get<"secretReferences", "list">("/secret-references", { ...paging })
export const createSecretReference = (body: NewSecretReference) =>
  send<"secretReferences", "create">("POST", "/secret-references", body)
export const updateSecretReference = (id: string, body: SecretReferenceChange) =>
  send<"secretReferences", "update">("PUT", `/secret-references/${segment(id)}`, body)
export const deleteSecretReference = (id: string) =>
  send<"secretReferences", "delete">("DELETE", `/secret-references/${segment(id)}`)
