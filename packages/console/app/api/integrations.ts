/**
 * Integrations (an organisation's credential for one AI provider, with its credential's health) and providers
 * (a workspace's `@slug` handle on one): list, create, and the on-demand credential test.
 */
import { get, type Item, type Paging, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type ProviderIntegration = Item<Answer<"integrations", "list">>
export type NewProviderIntegration = Body<"integrations", "create">
export type CredentialHealth = Answer<"integrations", "test">
export type GatewayProvider = Item<Answer<"providers", "list">>

export const listProviderIntegrations = (workspaceId: string | undefined, paging: Paging) =>
  get<"integrations", "list">("/integrations", { workspace_id: workspaceId, ...paging })
export const createProviderIntegration = (body: NewProviderIntegration) =>
  send<"integrations", "create">("POST", "/integrations", body)
export const testProviderIntegration = (slug: string) =>
  send<"integrations", "test">("POST", `/integrations/${segment(slug)}/test`)

export const listProviders = (workspaceId: string | undefined, paging: Paging) =>
  get<"providers", "list">("/providers", { workspace_id: workspaceId, ...paging })
export const createProvider = (body: Body<"providers", "create">) =>
  send<"providers", "create">("POST", "/providers", body)
/** One integration, with its credential's health (the list leaves it out). */
export const getProviderIntegration = (slug: string) => get<"integrations", "get">(`/integrations/${segment(slug)}`)
