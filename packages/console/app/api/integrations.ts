/**
 * Integrations (an organisation's credential for one AI provider, with its credential's health) and providers
 * (a workspace's `@slug` handle on one): list, create, change, delete; an integration's workspaces and models;
 * and the on-demand credential test.
 */
import { get, type Item, type Paging, segment, send } from "./client.ts"
import type { Answer, Body } from "./contract.ts"

export type ProviderIntegration = Item<Answer<"integrations", "list">>
export type NewProviderIntegration = Body<"integrations", "create">
export type IntegrationChange = Body<"integrations", "update">
export type CredentialHealth = Answer<"integrations", "test">
export type IntegrationWorkspaces = Answer<"integrations", "getWorkspaces">
export type IntegrationWorkspacesChange = Body<"integrations", "updateWorkspaces">
export type IntegrationModels = Answer<"integrations", "getModels">
export type IntegrationModelsChange = Body<"integrations", "updateModels">
export type GatewayProvider = Item<Answer<"providers", "list">>
export type ProviderChange = Body<"providers", "update">

const at = (slug: string) => `/integrations/${segment(slug)}` as const

export const listProviderIntegrations = (workspaceId: string | undefined, paging: Paging) =>
  get<"integrations", "list">("/integrations", { workspace_id: workspaceId, ...paging })
export const createProviderIntegration = (body: NewProviderIntegration) =>
  send<"integrations", "create">("POST", "/integrations", body)
export const updateProviderIntegration = (slug: string, body: IntegrationChange) =>
  send<"integrations", "update">("PUT", at(slug), body)
export const deleteProviderIntegration = (slug: string) => send<"integrations", "delete">("DELETE", at(slug))
export const testProviderIntegration = (slug: string) => send<"integrations", "test">("POST", `${at(slug)}/test`)
export const getIntegrationWorkspaces = (slug: string) => get<"integrations", "getWorkspaces">(`${at(slug)}/workspaces`)
export const updateIntegrationWorkspaces = (slug: string, body: IntegrationWorkspacesChange) =>
  send<"integrations", "updateWorkspaces">("PUT", `${at(slug)}/workspaces`, body)
export const getIntegrationModels = (slug: string) => get<"integrations", "getModels">(`${at(slug)}/models`)
export const updateIntegrationModels = (slug: string, body: IntegrationModelsChange) =>
  send<"integrations", "updateModels">("PUT", `${at(slug)}/models`, body)

export const listProviders = (workspaceId: string | undefined, paging: Paging) =>
  get<"providers", "list">("/providers", { workspace_id: workspaceId, ...paging })
export const createProvider = (body: Body<"providers", "create">) =>
  send<"providers", "create">("POST", "/providers", body)
export const updateProvider = (id: string, body: ProviderChange) =>
  send<"providers", "update">("PUT", `/providers/${segment(id)}`, body)
export const deleteProvider = (id: string) => send<"providers", "delete">("DELETE", `/providers/${segment(id)}`)
