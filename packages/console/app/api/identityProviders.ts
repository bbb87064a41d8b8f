/** The identity providers' calls: list, create, update (turn on or off), delete. */
import { get, type Item, type Paging, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type IdentityProvider = Item<Answer<"identityProviders", "list">>
export type NewIdentityProvider = Body<"identityProviders", "create">
/** `{"<group>": {"organisation_role": "admin", "workspaces": {"<workspace slug>": "manager"}}}`. */
export type RoleMap = NonNullable<NewIdentityProvider["role_map"]>

export const listIdentityProviders = (paging: Paging) =>
  get<"identityProviders", "list">("/admin/identity-providers", { ...paging })
export const createIdentityProvider = (body: NewIdentityProvider) =>
  send<"identityProviders", "create">("POST", "/admin/identity-providers", body)
export const updateIdentityProvider = (id: string, body: Body<"identityProviders", "update">) =>
  send<"identityProviders", "update">("PUT", `/admin/identity-providers/${segment(id)}`, body)
export const deleteIdentityProvider = (id: string) =>
  send<"identityProviders", "delete">("DELETE", `/admin/identity-providers/${segment(id)}`)
