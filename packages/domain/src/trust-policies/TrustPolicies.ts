/**
 * Administering trust policies: create, list, read, replace, delete. Every change is an audited use case; the
 * policy (Policy.ts, KeyPolicy.ts) lets organisation owners' and admins' admin keys do it, and never lets a
 * policy's credentials get a scope its writer lacks.
 */
import { Context, Effect, Layer } from "effect"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureTrustPolicyWrite } from "../access/KeyPolicy.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import type { UnknownScopes } from "../credentials/KeyRules.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { type CreateTrustPolicy, TrustPolicy, type UpdateTrustPolicy } from "./TrustPolicy.ts"
import { checkTrustPolicy } from "./TrustPolicyRules.ts"
import { TrustPolicyStore } from "./TrustPolicyStore.ts"
import { WorkloadTokens } from "./WorkloadTokens.ts"

type AccessError = Forbidden | NotFound | StoreError
type WriteError = InvalidRequest | UnknownScopes | AccessError | Conflict

export class TrustPolicies extends Context.Service<
  TrustPolicies,
  {
    readonly create: (principal: Principal, input: CreateTrustPolicy) => Effect.Effect<TrustPolicy, WriteError>
    readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<TrustPolicy>, AccessError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<TrustPolicy, AccessError>
    /** Replaces every field the caller gives a policy; credentials already issued keep what they got. */
    readonly update: (
      principal: Principal,
      id: string,
      input: UpdateTrustPolicy
    ) => Effect.Effect<TrustPolicy, WriteError>
    /** Deletes the policy: no token is exchanged under it again. Credentials already issued run out on their own. */
    readonly delete: (principal: Principal, id: string) => Effect.Effect<TrustPolicy, AccessError>
  }
>()("@gateway-control/TrustPolicies") {
  static readonly layer = Layer.effect(
    TrustPolicies,
    Effect.gen(function*() {
      const store = grantedWrites(yield* TrustPolicyStore, {
        insert: "trust_policies.create",
        update: "trust_policies.update",
        delete: "trust_policies.delete"
      })
      const workspaces = yield* WorkspaceStore
      const tokens = yield* WorkloadTokens
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase

      /** The input checked, its workspace found (another organisation's is the policy's to hide), its keys checked. */
      const validate = Effect.fnUntraced(function*(input: CreateTrustPolicy) {
        const valid = yield* checkTrustPolicy(input)
        const workspace = yield* requireRow(yield* workspaces.get(valid.workspace_id), "workspace", valid.workspace_id)
        if (valid.jwks !== null) yield* tokens.checkKeySet(valid.jwks, "jwks")
        return { valid, workspace }
      })

      const create = Effect.fn("TrustPolicies.create")(function*(principal: Principal, input: CreateTrustPolicy) {
        const { valid, workspace } = yield* validate(input)
        const id = crypto.uuid()
        const grant = yield* ensureTrustPolicyWrite(principal, "trust_policies.create", {
          id,
          organisationId: workspace.organisation_id,
          workspaceId: workspace.id,
          scopes: valid.scopes
        })
        const now = yield* nowIso
        const policy = new TrustPolicy({
          ...valid,
          id,
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          created_at: now,
          created_by_user_id: principal.userId,
          created_by_api_key_id: principal.keyId,
          last_updated_at: now
        })
        yield* store.insert(grant, policy)
        return policy
      })

      /** The policy, when the principal may `action` it; another organisation's answers not found. */
      const visible = Effect.fnUntraced(function*<A extends "trust_policies.read" | "trust_policies.delete">(
        principal: Principal,
        id: string,
        action: A
      ) {
        const policy = yield* requireRow(yield* store.get(id), "trust policy", id)
        const target = Target.workspace(policy.organisation_id, policy.workspace_id)
        const grant = yield* ensureAllowed(principal, action, target, { type: "trust policy", id })
        return { grant, policy }
      })

      const list = Effect.fn("TrustPolicies.list")(function*(principal: Principal, page: PageRequest) {
        const organisation = Target.organisation(principal.organisationId)
        yield* ensureAllowed(principal, "trust_policies.list", organisation, {
          type: "organisation",
          id: principal.organisationId
        })
        return yield* store.list(principal.organisationId, page)
      })

      const get = (principal: Principal, id: string) =>
        Effect.map(visible(principal, id, "trust_policies.read"), ({ policy }) => policy)

      const update = Effect.fn("TrustPolicies.update")(
        function*(principal: Principal, id: string, input: UpdateTrustPolicy) {
          const { policy: current } = yield* visible(principal, id, "trust_policies.read")
          const { valid, workspace } = yield* validate(input)
          if (workspace.organisation_id !== current.organisation_id) {
            return yield* InvalidRequest.of("workspace_id must name a workspace of the policy's organisation.", null)
          }
          const grant = yield* ensureTrustPolicyWrite(principal, "trust_policies.update", {
            id,
            organisationId: current.organisation_id,
            workspaceId: workspace.id,
            scopes: valid.scopes
          })
          const changed = new TrustPolicy({ ...current, ...valid, last_updated_at: yield* nowIso })
          yield* store.update(grant, changed)
          return changed
        }
      )

      const remove = Effect.fn("TrustPolicies.delete")(function*(principal: Principal, id: string) {
        const { grant, policy } = yield* visible(principal, id, "trust_policies.delete")
        yield* store.delete(grant, id)
        return policy
      })

      return TrustPolicies.of({
        create: (principal, input) =>
          useCases.run(
            {
              useCase: "trustPolicies.create",
              actor: principal,
              resourceId: (policy) => policy.id,
              workspaceId: (policy) => policy.workspace_id,
              body: input
            },
            create(principal, input)
          ),
        list,
        get,
        update: (principal, id, input) =>
          useCases.run(resourceChange("trustPolicies.update", principal, input, id), update(principal, id, input)),
        delete: (principal, id) =>
          useCases.run(resourceChange("trustPolicies.delete", principal, null, id), remove(principal, id))
      })
    })
  )
}
