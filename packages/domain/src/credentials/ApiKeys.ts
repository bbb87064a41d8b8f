/**
 * Issuing API keys and resolving a presented key into a `Principal`.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { UserStore, WorkspaceStore } from "../access/AccessStores.ts"
import {
  ensureKeyCreation,
  ensureKeyCreationAllowed,
  ensureKeyRevocation,
  newKeyExpiry,
  newKeyUser
} from "../access/KeyPolicy.ts"
import { ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import type { Scope } from "../access/Scopes.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import {
  type Conflict,
  type Forbidden,
  InvalidRequest,
  type NotFound,
  requireRow,
  type Unauthenticated
} from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { refuseUnsupported } from "../shared/Unsupported.ts"
import {
  ApiKey,
  type ApiKeyType,
  isApiKeyType,
  KEY_PREFIX,
  KEY_RANDOM_BYTES,
  maskKey,
  type RateLimit,
  type RotationPolicy,
  type WorkloadIdentity
} from "./ApiKey.ts"
import { type CreateApiKey, UNSUPPORTED_KEY_FIELDS } from "./ApiKeyInputs.ts"
import { ApiKeyStore, type KeyListFilters } from "./ApiKeyStore.ts"
import { makeKeyWrites } from "./internal/keyWrites.ts"
import { makeKeyChanges, type RotateKeyInput, type UpdateKeyInput } from "./KeyChanges.ts"
import type { RateLimited } from "./KeyRateLimits.ts"
import { type Admitted, makeKeyResolution } from "./KeyResolution.ts"
import {
  checkAlertEmails,
  checkExpiry,
  checkInstant,
  checkRateLimits,
  checkRotationPolicy,
  checkScopes,
  KEY_DEFAULTS_WHY,
  type UnknownScopes
} from "./KeyRules.ts"
import { checkUsageLimits, type UsageLimits } from "./UsageLimits.ts"

export type { RotateKeyInput, UpdateKeyInput } from "./KeyChanges.ts"
export { RateLimited, type RateLimitStatus } from "./KeyRateLimits.ts"
export { KEY_CACHE_TTL_MS } from "./KeyResolution.ts"
export type { Admitted } from "./KeyResolution.ts"
export { DEFAULT_TRANSITION_PERIOD_MS, MAX_TRANSITION_PERIOD_MS, UnknownScopes } from "./KeyRules.ts"

export interface IssueKeyInput {
  readonly type: ApiKeyType
  readonly name: string
  readonly description: string | null
  readonly organisationId: string
  readonly workspaceId: string | null
  readonly userId: string | null
  readonly scopes: ReadonlyArray<Scope>
  readonly expiresAt: string | null
  readonly rateLimits?: ReadonlyArray<RateLimit> | undefined
  readonly usageLimits?: UsageLimits | null | undefined
  readonly rotationPolicy?: RotationPolicy | null | undefined
  readonly alertEmails?: ReadonlyArray<string> | undefined
  /** The workload a credential issued by token exchange stands for. */
  readonly workload?: WorkloadIdentity | undefined
}

export interface IssuedKey {
  readonly key: ApiKey
  /** The only time the plaintext exists outside the caller's hands. */
  readonly plaintext: Redacted.Redacted<string>
}

/**
 * A key as a caller asks for it (`CreateApiKey`, in the API's casing), and its kind: an `ApiKeyType`; anything
 * else is refused, and recorded, like any invalid input.
 */
export type CreateKeyInput = typeof CreateApiKey.Type & { readonly type: string }

/** What a key list is narrowed to: a workspace (the caller's own, or any for an admin key), and `filters`. */
export interface KeyListRequest {
  readonly workspaceId?: string | undefined
  readonly status?: KeyListFilters["status"]
  readonly type?: KeyListFilters["type"]
  readonly name?: string | undefined
  /** An ISO 8601 date-time: keys last used before it, or never. */
  readonly lastUsedBefore?: string | undefined
}

type AccessError = Forbidden | NotFound | StoreError

export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    /**
     * Issues a key that no principal asked for, so without access checks: bootstrap's path (and tests'
     * setup), where no key exists yet that the policy could allow anything. `create` is the checked path.
     */
    readonly issue: (input: IssueKeyInput) => Effect.Effect<IssuedKey, Conflict | StoreError>
    /** Creates a key for a caller, under the access rules: no escalation, no wider reach. */
    readonly create: (
      principal: Principal,
      input: CreateKeyInput
    ) => Effect.Effect<IssuedKey, InvalidRequest | UnknownScopes | AccessError | Conflict>
    readonly list: (
      principal: Principal,
      request: KeyListRequest,
      page: PageRequest
    ) => Effect.Effect<Page<ApiKey>, InvalidRequest | AccessError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<ApiKey, AccessError>
    /** Revokes the key; it answers 401 from then on. Revoking a revoked key changes nothing. */
    readonly revoke: (principal: Principal, id: string) => Effect.Effect<ApiKey, InvalidRequest | AccessError>
    /**
     * Gives the key a new secret, returned this once; the current one keeps working until the transition
     * ends. `Conflict` while the last rotation's transition lasts, or for a revoked key.
     */
    readonly rotate: (
      principal: Principal,
      id: string,
      input: RotateKeyInput
    ) => Effect.Effect<IssuedKey, InvalidRequest | AccessError | Conflict>
    /** Changes the key's name, description, scopes (never past the caller's), expiry or rate limits. */
    readonly update: (
      principal: Principal,
      id: string,
      input: UpdateKeyInput
    ) => Effect.Effect<ApiKey, InvalidRequest | UnknownScopes | AccessError>
    /** The presented key's principal, once its rate limits (if any) let the call through. */
    readonly admit: (
      presented: Redacted.Redacted<string>
    ) => Effect.Effect<Admitted, Unauthenticated | RateLimited | StoreError>
    /** `admit`'s principal. */
    readonly authenticate: (
      presented: Redacted.Redacted<string>
    ) => Effect.Effect<Principal, Unauthenticated | RateLimited | StoreError>
    /**
     * Forgets what every process resolved for the user's keys, once the current unit of work commits: call it
     * whenever the user's memberships or roles change.
     */
    readonly forgetUser: (userId: string) => Effect.Effect<void, StoreError>
    /**
     * Revokes every active key of a workspace, or of a kind acting as a user, each under the rules of revoking
     * it (`ensureKeyRevocation`): a step of a use case that takes the keys' reach away (deleting a workspace,
     * removing a user), run inside it. Answers the revoked keys' ids.
     */
    readonly revokeAll: (
      principal: Principal,
      of: { readonly workspaceId: string } | { readonly userId: string; readonly type: ApiKeyType }
    ) => Effect.Effect<ReadonlyArray<string>, InvalidRequest | AccessError>
  }
>()("@gateway-control/ApiKeys") {
  static readonly layer = Layer.effect(
    ApiKeys,
    Effect.gen(function*() {
      const unguarded = yield* ApiKeyStore
      const store = yield* makeKeyWrites
      const crypto = yield* PlatformCrypto
      const users = yield* UserStore
      const workspaces = yield* WorkspaceStore
      const { admit, forget, learn } = yield* makeKeyResolution

      const newSecret = () => {
        const plaintext = `${KEY_PREFIX}${crypto.randomToken(KEY_RANDOM_BYTES)}`
        return { plaintext, digest: crypto.sha256Hex(plaintext) }
      }
      const { rotate, update } = yield* makeKeyChanges({ forget, learn, newSecret })

      /** A new key, as stored and as handed to its holder; `createdBy` is null for bootstrap's. */
      const mint = Effect.fnUntraced(function*(input: IssueKeyInput, createdBy: Principal | null) {
        const { digest, plaintext } = newSecret()
        const now = yield* nowIso
        const key = new ApiKey({
          id: crypto.uuid(),
          type: input.type,
          name: input.name,
          description: input.description,
          organisation_id: input.organisationId,
          workspace_id: input.workspaceId,
          user_id: input.userId,
          scopes: [...new Set(input.scopes)],
          status: "active",
          masked_key: maskKey(plaintext),
          created_at: now,
          created_by_user_id: createdBy?.userId ?? null,
          created_by_api_key_id: createdBy?.keyId ?? null,
          last_updated_at: now,
          expires_at: input.expiresAt,
          rate_limits: input.rateLimits ?? [],
          last_used_at: null,
          rotated_at: null,
          transition_ends_at: null,
          usage_limits: input.usageLimits ?? null,
          rotation_policy: input.rotationPolicy ?? null,
          alert_emails: input.alertEmails ?? [],
          workload: input.workload ?? null
        })
        const issued: IssuedKey = { key, plaintext: Redacted.make(plaintext, { label: "api-key" }) }
        return { stored: { key, digest }, issued }
      })

      // Bootstrap's insert takes no grant: there is no principal yet for the policy to grant one to.
      const issue = Effect.fn("ApiKeys.issue")(function*(input: IssueKeyInput) {
        const { issued, stored } = yield* mint(input, null)
        yield* unguarded.insert(stored)
        return issued
      })

      const validate = Effect.fnUntraced(function*(input: CreateKeyInput) {
        const name = input.name.trim()
        yield* checkName(name)
        const scopes = yield* checkScopes(input.scopes)
        const expiresAt = input.expires_at === undefined ? null : yield* checkExpiry(input.expires_at)
        if (input.rate_limits !== undefined) yield* checkRateLimits(input.rate_limits)
        yield* refuseUnsupported(input, UNSUPPORTED_KEY_FIELDS, KEY_DEFAULTS_WHY)
        const usageLimits = input.usage_limits == null ? null : yield* checkUsageLimits(input.usage_limits)
        const rotationPolicy = input.rotation_policy == null ? null : yield* checkRotationPolicy(input.rotation_policy)
        const alertEmails = input.alert_emails === undefined ? [] : yield* checkAlertEmails(input.alert_emails)
        return { name, scopes, expiresAt, usageLimits, rotationPolicy, alertEmails }
      })

      const create = Effect.fn("ApiKeys.create")(function*(principal: Principal, request: CreateKeyInput) {
        if (!isApiKeyType(request.type)) {
          return yield* InvalidRequest.of(
            `Unknown key type '${request.type}': use organisation/service, workspace/service or workspace/user.`,
            "type"
          )
        }
        const input = { ...request, type: request.type }
        const valid = yield* validate(input)
        const organisationKey = input.type === "organisation-service"
        // The organisation and workspace the key is to live in: the admin key's own organisation, or a workspace
        // (a workspace key creating another defaults to its own), which the policy then decides about.
        let place: { readonly organisationId: string; readonly workspaceId: string | null } = {
          organisationId: principal.organisationId,
          workspaceId: null
        }
        if (!organisationKey) {
          const requested = input.workspace_id ?? principal.workspaceId ?? undefined
          if (requested === undefined) {
            return yield* InvalidRequest.of("workspace_id is required for workspace keys.", "workspace_id")
          }
          const workspace = yield* requireRow(yield* workspaces.get(requested), "workspace", requested)
          place = { organisationId: workspace.organisation_id, workspaceId: workspace.id }
        } else if (input.workspace_id !== undefined) {
          return yield* InvalidRequest.of("Admin keys are organisation-wide: leave out workspace_id.", "workspace_id")
        }
        const workspaceId = place.workspaceId
        // Whether the caller may create such keys there at all, before anything about users is looked up.
        yield* ensureKeyCreationAllowed(principal, { type: input.type, ...place, scopes: valid.scopes })

        if (input.type === "workspace-service" && input.user_id !== undefined) {
          return yield* InvalidRequest.of("user_id applies to workspace/user and admin keys only.", "user_id")
        }
        const named = input.type === "workspace-user" ? input.user_id ?? principal.userId ?? undefined : input.user_id
        if (input.type === "workspace-user" && named === undefined) {
          return yield* InvalidRequest.of("user_id is required: the calling key has no user.", "user_id")
        }
        if (named !== undefined) yield* requireRow(yield* users.get(named), "user", named)
        const { issued, stored } = yield* mint({
          type: input.type,
          name: valid.name,
          description: input.description ?? null,
          organisationId: place.organisationId,
          workspaceId,
          userId: newKeyUser(principal, input.type, named ?? null),
          scopes: valid.scopes,
          expiresAt: newKeyExpiry(principal, valid.expiresAt),
          rateLimits: input.rate_limits,
          usageLimits: valid.usageLimits,
          rotationPolicy: valid.rotationPolicy,
          alertEmails: valid.alertEmails
        }, principal)
        // The key as it will be stored: whom it acts as, and until when, are decided on what is written.
        const creating = yield* ensureKeyCreation(principal, stored.key, yield* store.actingUser(stored.key))
        yield* store.insert(creating, stored)
        yield* learn(stored.key, stored.digest)
        return issued
      })

      /** The key, if the principal may see it (another organisation's answers not found), and the grant of `action`. */
      const visible = Effect.fnUntraced(
        function*<A extends "api_keys.read" | "api_keys.update" | "api_keys.delete">(
          principal: Principal,
          id: string,
          action: A
        ) {
          const key = yield* requireRow(yield* store.get(id), "API key", id)
          // An admin key is organisation-level and open to no workspace: workspace keys do not see it.
          const allowed = yield* ensureAllowed(principal, action, Target.of(key), { type: "API key", id })
          return { allowed, key }
        }
      )

      const list = Effect.fn("ApiKeys.list")(
        function*(principal: Principal, request: KeyListRequest, page: PageRequest) {
          const lastUsedBefore = request.lastUsedBefore === undefined
            ? undefined
            : yield* checkInstant(request.lastUsedBefore, "last_used_before")
          const scope = yield* ensureListScope(workspaces, principal, request.workspaceId, "api_keys.list")
          return yield* store.list(principal.organisationId, scope, page, {
            status: request.status,
            type: request.type,
            name: request.name,
            lastUsedBefore
          })
        }
      )

      const get = (principal: Principal, id: string) =>
        Effect.map(visible(principal, id, "api_keys.read"), ({ key }) => key)

      const revoke = Effect.fn("ApiKeys.revoke")(function*(principal: Principal, id: string) {
        const { key } = yield* visible(principal, id, "api_keys.delete")
        const revoking = yield* ensureKeyRevocation(principal, key, yield* store.actingUser(key))
        if (key.status === "revoked") return key
        const at = yield* nowIso
        yield* store.revoke(revoking, id, at)
        yield* forget({ _tag: "ApiKeyChanged", keyId: id })
        return new ApiKey({ ...key, status: "revoked", last_updated_at: at })
      })

      const authenticate = (presented: Redacted.Redacted<string>) =>
        Effect.map(admit(presented), (admitted) => admitted.principal)

      const forgetUser = (userId: string) => forget({ _tag: "UserAccessChanged", userId })

      /** Every active key of the organisation in `workspaceId` (all when null) of `type` (any when undefined). */
      const activeKeys = Effect.fnUntraced(
        function*(organisationId: string, workspaceId: string | null, type: ApiKeyType | undefined) {
          const found: Array<ApiKey> = []
          const limit = 1000
          for (let offset = 0;; offset += limit) {
            const page = yield* store.list(organisationId, workspaceId, { limit, offset }, { status: "active", type })
            found.push(...page.items)
            if (offset + limit >= page.total) return found
          }
        }
      )

      const revokeAll = Effect.fn("ApiKeys.revokeAll")(
        function*(
          principal: Principal,
          of: { readonly workspaceId: string } | { readonly userId: string; readonly type: ApiKeyType }
        ) {
          const keys = "workspaceId" in of
            ? yield* activeKeys(principal.organisationId, of.workspaceId, undefined)
            : (yield* activeKeys(principal.organisationId, null, of.type)).filter((key) => key.user_id === of.userId)
          const at = yield* nowIso
          for (const key of keys) {
            const revoking = yield* ensureKeyRevocation(principal, key, yield* store.actingUser(key))
            yield* store.revoke(revoking, key.id, at)
            yield* forget({ _tag: "ApiKeyChanged", keyId: key.id })
          }
          return keys.map((key) => key.id)
        }
      )

      const useCases = yield* AuditedUseCase
      return ApiKeys.of({
        issue,
        authenticate,
        admit,
        create: (principal, input) => {
          const { type: _type, ...body } = input
          return useCases.run(
            {
              useCase: "apiKeys.create",
              actor: principal,
              resourceId: ({ key }) => key.id,
              workspaceId: ({ key }) => key.workspace_id,
              body,
              // The record says who the service made the key's creator; the secret is in the answer only.
              successBody: ({ key }) => ({
                ...body,
                created_by_user_id: key.created_by_user_id,
                created_by_api_key_id: key.created_by_api_key_id
              })
            },
            create(principal, input)
          )
        },
        list,
        get,
        revoke: (principal, id) =>
          useCases.run(resourceChange("apiKeys.revoke", principal, null, id), revoke(principal, id)),
        rotate: (principal, id, input) =>
          useCases.run(
            {
              useCase: "apiKeys.rotate",
              actor: principal,
              resourceId: id,
              workspaceId: ({ key }) => key.workspace_id,
              body: input,
              successBody: ({ key }) => ({ ...input, transition_ends_at: key.transition_ends_at })
            },
            rotate(principal, id, input)
          ),
        update: (principal, id, input) =>
          useCases.run(resourceChange("apiKeys.update", principal, input, id), update(principal, id, input)),
        forgetUser,
        revokeAll
      })
    })
  )
}
