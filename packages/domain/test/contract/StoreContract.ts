/**
 * The store contract: one suite of repository tests that every implementation of the ports must pass, one
 * file per feature. Call `storeContract(name, layer)` from an adapter's tests with a layer that builds a
 * fresh store; the audit log's part is `auditContract` (it needs the audit service over the store).
 */
import type { Layer } from "effect"
import { describe } from "vitest"
import { accessContract } from "./AccessContract.ts"
import { apiKeyContract } from "./ApiKeyContract.ts"
import { type Stores, useStore } from "./ContractHarness.ts"
import { credentialContract } from "./CredentialContract.ts"
import { idempotencyContract } from "./IdempotencyContract.ts"
import { identityProviderContract } from "./IdentityProviderContract.ts"
import { integrationContract } from "./IntegrationContract.ts"
import { inviteContract } from "./InviteContract.ts"
import { labelContract } from "./LabelContract.ts"
import { localAccountContract } from "./LocalAccountContract.ts"
import { mcpConnectivityContract } from "./McpConnectivityContract.ts"
import { mcpContract } from "./McpContract.ts"
import { promptContract } from "./PromptContract.ts"
import { scimTokenContract } from "./ScimTokenContract.ts"
import { secretReferenceContract } from "./SecretReferenceContract.ts"
import { sessionContract } from "./SessionContract.ts"
import { transactionContract } from "./TransactionContract.ts"
import { trustPolicyContract } from "./TrustPolicyContract.ts"

export type { Stores } from "./ContractHarness.ts"

export const storeContract = <E>(name: string, makeLayer: () => Layer.Layer<Stores, E>) => {
  describe(`store contract: ${name}`, () => {
    const harness = useStore(makeLayer)
    transactionContract(harness)
    accessContract(harness)
    apiKeyContract(harness)
    promptContract(harness)
    labelContract(harness)
    mcpContract(harness)
    mcpConnectivityContract(harness)
    trustPolicyContract(harness)
    sessionContract(harness)
    localAccountContract(harness)
    secretReferenceContract(harness)
    integrationContract(harness)
    scimTokenContract(harness)
    inviteContract(harness)
    credentialContract(harness)
    idempotencyContract(harness)
    identityProviderContract(harness)
  })
}
