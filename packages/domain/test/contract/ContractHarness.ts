/**
 * What the store contract's suites share: fixtures that never collide, and a runtime over one fresh store
 * for a whole suite. Tests share the store, never their data: each starts from an organisation of its own.
 */
import { Effect, type Exit, type Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll } from "vitest"
import {
  OrganisationStore,
  type UserStore,
  type WorkspaceMemberStore,
  type WorkspaceStore
} from "../../src/access/AccessStores.ts"
import type { ApiKeyStore } from "../../src/credentials/ApiKeyStore.ts"
import type { IdentityProviderStore, SignInFlowStore } from "../../src/identity-providers/IdentityProviderStore.ts"
import {
  ApiKey,
  type ConfigStore,
  type IdempotencyStore,
  type IntegrationStore,
  type LabelStore,
  type LeaseStore,
  type McpCapabilityStore,
  McpIntegration,
  type McpIntegrationStore,
  type McpServerStore,
  Organisation,
  type PartialStore,
  Prompt,
  type PromptStore,
  PromptVersion,
  type ProviderStore,
  User,
  Workspace
} from "../../src/index.ts"
import type { CredentialHealthStore } from "../../src/integrations/CredentialHealth.ts"
import type { InviteStore } from "../../src/invites/InviteStore.ts"
import type { ScimTokenStore } from "../../src/scim-tokens/ScimTokenStore.ts"
import type { SecretReferenceStore } from "../../src/secret-references/SecretReferenceStore.ts"
import type { LocalAccountStore } from "../../src/sessions/LocalAccountStore.ts"
import type { SessionStore } from "../../src/sessions/SessionStore.ts"
import type { StoreTransaction } from "../../src/shared/StoreTransaction.ts"
import type { TrustPolicyStore } from "../../src/trust-policies/TrustPolicyStore.ts"

export type Stores =
  | McpIntegrationStore
  | McpCapabilityStore
  | LeaseStore
  | IdempotencyStore
  | McpServerStore
  | PromptStore
  | PartialStore
  | LabelStore
  | OrganisationStore
  | WorkspaceStore
  | UserStore
  | WorkspaceMemberStore
  | ApiKeyStore
  | ProviderStore
  | ConfigStore
  | StoreTransaction
  | TrustPolicyStore
  | SessionStore
  | LocalAccountStore
  | SecretReferenceStore
  | IdentityProviderStore
  | SignInFlowStore
  | ScimTokenStore
  | InviteStore
  | IntegrationStore
  | CredentialHealthStore

let counter = 0
export const uid = () =>
  `${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 10)}`
// Distinct, increasing timestamps so that creation order is unambiguous.
let clock = Date.parse("2026-01-01T00:00:00.000Z")
export const at = () => new Date(clock += 1000).toISOString()

export const organisation = () => {
  const now = at()
  return new Organisation({ id: uid(), name: "Org", created_at: now, last_updated_at: now })
}
export const workspace = (organisationId: string, slug = `ws-${uid()}`) => {
  const now = at()
  return new Workspace({
    id: uid(),
    organisation_id: organisationId,
    name: `Workspace ${slug}`,
    slug,
    description: null,
    created_at: now,
    last_updated_at: now
  })
}
export const user = (organisationId: string, email = `${uid()}@example.com`) => {
  const now = at()
  return new User({
    id: uid(),
    organisation_id: organisationId,
    email,
    name: null,
    role: "member",
    created_at: now,
    last_updated_at: now
  })
}
export const apiKey = (
  organisationId: string,
  workspaceId: string | null,
  createdBy: { readonly userId: string | null; readonly keyId: string } | null = null
) => {
  const now = at()
  return new ApiKey({
    id: uid(),
    type: workspaceId === null ? "organisation-service" : "workspace-service",
    name: "key",
    description: "a key",
    organisation_id: organisationId,
    workspace_id: workspaceId,
    user_id: null,
    scopes: ["workspaces.read", "prompts.render"],
    status: "active",
    masked_key: "gwc_****abcd",
    created_at: now,
    created_by_user_id: createdBy?.userId ?? null,
    created_by_api_key_id: createdBy?.keyId ?? null,
    last_updated_at: now,
    expires_at: "2030-01-01T00:00:00.000Z",
    rate_limits: [],
    last_used_at: null,
    rotated_at: null,
    transition_ends_at: null,
    usage_limits: null,
    rotation_policy: null,
    alert_emails: [],
    workload: null
  })
}

/** An organisation-level integration open to every workspace; `fields` replace or add fields. */
export const mcpIntegration = (organisationId: string, slug: string, fields: Partial<McpIntegration> = {}) => {
  const now = at()
  return new McpIntegration({
    id: uid(),
    organisation_id: organisationId,
    name: slug,
    slug,
    owner_id: null,
    status: "active",
    url: "https://mcp.example.com",
    description: null,
    workspace_id: null,
    configurations: {},
    auth_type: "none",
    transport: "http",
    global_workspace_access: true,
    workspace_ids: [],
    secret_mappings: [],
    new_capabilities_enabled: true,
    status_message: null,
    status_changed_at: now,
    consecutive_failures: 0,
    created_at: now,
    last_updated_at: now,
    ...fields
  })
}

export const prompt = (organisationId: string, workspaceId: string, slug = "p") => {
  const now = at()
  return new Prompt({
    id: uid(),
    organisation_id: organisationId,
    workspace_id: workspaceId,
    collection_id: `c-${workspaceId}`,
    name: slug.toUpperCase(),
    slug,
    published_version: 1,
    created_at: now,
    last_updated_at: now
  })
}
export const promptVersion = (promptId: string, version: number, fields: Partial<PromptVersion> = {}) =>
  new PromptVersion({
    id: uid(),
    prompt_id: promptId,
    version,
    string: `v${version} {{x}}`,
    parameters: {},
    model: null,
    type: "completion",
    is_raw_template: false,
    version_description: null,
    template_metadata: {},
    virtual_key: null,
    created_at: at(),
    ...fields
  })

export interface Harness {
  readonly run: <A, E>(effect: Effect.Effect<A, E, Stores>) => Promise<A>
  /** The exit; its failure may also be the layer's own. */
  readonly exit: <A, E>(effect: Effect.Effect<A, E, Stores>) => Promise<Exit.Exit<A, unknown>>
  /** A fresh organisation for each test, so tests share the store but not their data. */
  readonly freshOrganisation: () => Promise<Organisation>
}

/** Builds the store before the suite's tests and releases it after them. Call inside a `describe`. */
export const useStore = <E>(makeLayer: () => Layer.Layer<Stores, E>): Harness => {
  let runtime: ManagedRuntime.ManagedRuntime<Stores, E>
  beforeAll(async () => {
    runtime = ManagedRuntime.make(makeLayer())
    await runtime.runPromise(Effect.void)
  }, 120_000)
  afterAll(() => runtime?.dispose())
  const run = <A, E2>(effect: Effect.Effect<A, E2, Stores>) => runtime.runPromise(effect)
  return {
    run,
    exit: (effect) => runtime.runPromiseExit(effect),
    freshOrganisation: () =>
      run(Effect.gen(function*() {
        const org = organisation()
        yield* (yield* OrganisationStore).insert(org)
        return org
      }))
  }
}
