/**
 * Every store port in one union: each feature declares its own stores beside its services; this file only
 * gathers them, so no feature imports another through it.
 */
import type { OrganisationStore, UserStore, WorkspaceMemberStore, WorkspaceStore } from "./access/AccessStores.ts"
import type { AuditLogStore } from "./audit/AuditLogStore.ts"
import type { CollectionStore } from "./collections/Collection.ts"
import type { ApiKeyStore } from "./credentials/ApiKeyStore.ts"
import type { ConfigStore } from "./credentials/ProviderKeyStores.ts"
import type { IdempotencyStore } from "./idempotency/IdempotencyStore.ts"
import type { IdentityProviderStore, SignInFlowStore } from "./identity-providers/IdentityProviderStore.ts"
import type { CredentialHealthStore } from "./integrations/CredentialHealth.ts"
import type { IntegrationStore } from "./integrations/IntegrationStore.ts"
import type { InviteStore } from "./invites/InviteStore.ts"
import type { McpCapabilityStore } from "./mcp/Capabilities.ts"
import type { McpIntegrationStore, McpServerStore } from "./mcp/Mcp.ts"
import type { LabelStore } from "./prompts/Label.ts"
import type { PartialStore, PromptStore } from "./prompts/Prompt.ts"
import type { ProviderStore } from "./providers/ProviderStore.ts"
import type { ScimTokenStore } from "./scim-tokens/ScimTokenStore.ts"
import type { ScimStore } from "./scim/ScimStore.ts"
import type { SecretReferenceStore } from "./secret-references/SecretReferenceStore.ts"
import type { LocalAccountStore } from "./sessions/LocalAccountStore.ts"
import type { SessionStore } from "./sessions/SessionStore.ts"
import type { ChangeFeed } from "./shared/ChangeFeed.ts"
import type { LeaseStore } from "./shared/Leases.ts"
import type { StoreTransaction } from "./shared/StoreTransaction.ts"
import type { TrustPolicyStore } from "./trust-policies/TrustPolicyStore.ts"

/** Every store port: what a store adapter (`layerMemory`, `layerSql`) provides, each the same set. */
export type StorePorts =
  | OrganisationStore
  | WorkspaceStore
  | UserStore
  | WorkspaceMemberStore
  | ApiKeyStore
  | AuditLogStore
  | PromptStore
  | PartialStore
  | CollectionStore
  | LabelStore
  | McpIntegrationStore
  | McpServerStore
  | McpCapabilityStore
  | ConfigStore
  | StoreTransaction
  | ChangeFeed
  | LeaseStore
  | TrustPolicyStore
  | SessionStore
  | LocalAccountStore
  | SecretReferenceStore
  | IntegrationStore
  | CredentialHealthStore
  | ProviderStore
  | IdempotencyStore
  | IdentityProviderStore
  | SignInFlowStore
  | ScimTokenStore
  | ScimStore
  | InviteStore
