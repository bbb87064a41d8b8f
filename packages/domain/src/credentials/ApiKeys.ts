/**
 * Issuing API keys and resolving a presented key into a `Principal`.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { UserStore, WorkspaceMemberStore, WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import {
  ensureKeyCreation,
  ensureKeyUser,
  ensureScopesGrantable,
  KeyCreationActions,
  newKeyUser
} from "../access/KeyPolicy.ts"
import { ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import { type Principal, principalOf } from "../access/Principal.ts"
import { isScope, type Scope } from "../access/Scopes.ts"
import {
  type Conflict,
  type Forbidden,
  InvalidRequest,
  type NotFound,
  requireRow,
  Unauthenticated
} from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { TtlCache } from "../shared/internal/TtlCache.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName } from "../shared/Rules.ts"
import { StoreTransaction } from "../shared/StoreTransaction.ts"
import { ApiKey, type ApiKeyType, hasKeyShape, KEY_PREFIX, KEY_RANDOM_BYTES, maskKey } from "./ApiKey.ts"
import { ApiKeyStore } from "./ApiKeyStore.ts"

import { checkExpiry, checkScopes, type UnknownScopes } from "./internal/keyRules.ts"

export { UnknownScopes } from "./internal/keyRules.ts"

export interface IssueKeyInput {
  readonly type: ApiKeyType
  readonly name: string
  readonly description: string | null
  readonly organisationId: string
  readonly workspaceId: string | null
  readonly userId: string | null
  readonly scopes: ReadonlyArray<Scope>
  readonly expiresAt: string | null
}

export interface IssuedKey {
  readonly key: ApiKey
  /** The only time the plaintext exists outside the caller's hands. */
  readonly plaintext: Redacted.Redacted<string>
}

/** A key as a caller asks for it through the API. */
export interface CreateKeyInput {
  readonly type: ApiKeyType
  readonly name: string
  readonly description?: string | undefined
  readonly scopes: ReadonlyArray<string>
  readonly workspaceId?: string | undefined
  readonly userId?: string | undefined
  readonly expiresAt?: string | undefined
}

/** What a key's update may change. */
export interface KeyChange {
  readonly name?: string | undefined
  readonly description?: string | null | undefined
  readonly scopes?: ReadonlyArray<string> | undefined
  /** Null: the key no longer expires. */
  readonly expiresAt?: string | null | undefined
}

type AccessError = Forbidden | NotFound

/**
 * How long a resolved key is reused before the store is asked again. Revoking a key, or removing its user
 * from its workspace, takes effect at once in this process; in another process sharing the store, within
 * this time.
 */
export const KEY_CACHE_TTL_MS = 5_000

export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    /**
     * Issues a key that no principal asked for, so without access checks: bootstrap's path (and tests'
     * setup), where no key exists yet that the policy could allow anything. `create` is the checked path.
     */
    readonly issue: (input: IssueKeyInput) => Effect.Effect<IssuedKey, Conflict>
    /** Creates a key for a caller, under the access rules: no escalation, no wider reach. */
    readonly create: (
      principal: Principal,
      input: CreateKeyInput
    ) => Effect.Effect<IssuedKey, InvalidRequest | UnknownScopes | AccessError | Conflict>
    readonly list: (
      principal: Principal,
      workspaceId: string | undefined,
      page: PageRequest
    ) => Effect.Effect<Page<ApiKey>, AccessError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<ApiKey, AccessError>
    /** Changes a key's name, description, expiry or scopes; the scopes never past the caller's own. */
    readonly update: (
      principal: Principal,
      id: string,
      change: KeyChange
    ) => Effect.Effect<ApiKey, InvalidRequest | UnknownScopes | AccessError>
    /** Revokes the key; it answers 401 from then on. Revoking a revoked key changes nothing. */
    readonly revoke: (principal: Principal, id: string) => Effect.Effect<ApiKey, AccessError>
    readonly authenticate: (presented: Redacted.Redacted<string>) => Effect.Effect<Principal, Unauthenticated>
    /**
     * Forgets what this process resolved for the user's keys, once the current unit of work commits: call it
     * whenever the user's memberships or roles change.
     */
    readonly forgetUser: (userId: string) => Effect.Effect<void>
  }
>()("@gateway-control/ApiKeys") {
  static readonly layer = Layer.effect(
    ApiKeys,
    Effect.gen(function*() {
      const unguarded = yield* ApiKeyStore
      const store = grantedWrites(unguarded, {
        insert: Object.values(KeyCreationActions),
        update: "api_keys.update",
        revoke: "api_keys.delete"
      })
      const crypto = yield* PlatformCrypto
      const users = yield* UserStore
      const members = yield* WorkspaceMemberStore
      const workspaces = yield* WorkspaceStore
      const transaction = yield* StoreTransaction

      /** A new key, as stored and as handed to its holder; `createdBy` is null for bootstrap's. */
      const mint = Effect.fnUntraced(function*(input: IssueKeyInput, createdBy: Principal | null) {
        const plaintext = `${KEY_PREFIX}${crypto.randomToken(KEY_RANDOM_BYTES)}`
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
          expires_at: input.expiresAt
        })
        const issued: IssuedKey = { key, plaintext: Redacted.make(plaintext, { label: "api-key" }) }
        return { stored: { key, digest: crypto.sha256Hex(plaintext) }, issued }
      })

      // Bootstrap's insert takes no grant: there is no principal yet for the policy to grant one to.
      const issue = Effect.fn("ApiKeys.issue")(function*(input: IssueKeyInput) {
        const { issued, stored } = yield* mint(input, null)
        yield* unguarded.insert(stored)
        return issued
      })

      const rejected = (message: string, key?: ApiKey, credential?: Unauthenticated["credential"]) =>
        Effect.fail(
          new Unauthenticated({
            message,
            ...(credential === undefined ? {} : { credential }),
            ...(key === undefined ? {} : {
              knownKey: {
                id: key.id,
                organisation_id: key.organisation_id,
                workspace_id: key.workspace_id,
                user_id: key.user_id
              }
            })
          })
        )
      const expired = (key: ApiKey) => rejected(`This API key expired at ${key.expires_at}; create a new key.`, key)
      const invalid = () => rejected("Invalid API key.", undefined, "unrecognised")
      const resolved = new TtlCache<string, {
        readonly key: ApiKey
        readonly expiresAtMs: number
        readonly principal: Principal
      }>(KEY_CACHE_TTL_MS, 10_000)
      // Bumped by every invalidation: a resolution that read the store before one does not fill the cache.
      let generation = 0
      const forget = (predicate: (key: ApiKey) => boolean) =>
        transaction.afterCommit(Effect.sync(() => {
          generation++
          resolved.deleteWhere((entry) => predicate(entry.key))
        }))

      const resolveFromStore = Effect.fnUntraced(function*(digest: string, now: number) {
        const startedAt = generation
        const found = yield* store.findByDigest(digest)
        if (Option.isNone(found) || !crypto.digestsEqual(found.value.digest, digest)) return yield* invalid()
        const key = found.value.key
        if (key.status === "revoked") {
          return yield* rejected("This API key has been revoked; use another key.", key)
        }
        const expiresAtMs = key.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(key.expires_at)
        if (expiresAtMs <= now) return yield* expired(key)
        const principal = yield* resolvePrincipal(key)
        if (generation === startedAt) resolved.set(digest, { key, expiresAtMs, principal }, now)
        return principal
      })

      // Every request runs this: a cached key resolves synchronously, with no generator and no store access.
      const authenticate = (presented: Redacted.Redacted<string>) =>
        Effect.clockWith((clock): Effect.Effect<Principal, Unauthenticated> => {
          const candidate = Redacted.value(presented).trim()
          if (candidate.length === 0) return rejected("Missing API key.", undefined, "missing")
          if (!hasKeyShape(candidate)) return invalid()
          const digest = crypto.sha256Hex(candidate)
          const now = clock.currentTimeMillisUnsafe()
          const cached = resolved.get(digest, now)
          if (cached === undefined) return resolveFromStore(digest, now)
          return cached.expiresAtMs <= now ? expired(cached.key) : Effect.succeed(cached.principal)
        })

      /**
       * The key as a principal, with its user's current roles. A key whose user no longer exists, or a
       * workspace/user key whose user is no longer a member of its workspace, does not authenticate: it
       * acts as that user, and that user may no longer act there.
       */
      const resolvePrincipal = Effect.fnUntraced(function*(key: ApiKey) {
        let organisationRole: Principal["organisationRole"] = null
        if (key.user_id !== null) {
          const user = yield* users.get(key.user_id)
          if (Option.isNone(user) || user.value.organisation_id !== key.organisation_id) {
            return yield* rejected("This API key's user no longer exists; use another key.")
          }
          organisationRole = user.value.role
        }
        const membership = key.workspace_id === null || key.user_id === null
          ? null
          : Option.getOrNull(Option.map(yield* members.get(key.workspace_id, key.user_id), (m) => m.role))
        const principal = principalOf({ ...key, scopes: key.scopes.filter(isScope) }, organisationRole, membership)
        if (principal === undefined) {
          return yield* rejected(
            `This API key's user is no longer a member of workspace '${key.workspace_id}'; ` +
              "the key works again only if they are added back."
          )
        }
        return principal
      })

      const validate = Effect.fnUntraced(function*(input: CreateKeyInput) {
        const name = input.name.trim()
        yield* checkName(name)
        const scopes = yield* checkScopes(input.scopes)
        const expiresAt = input.expiresAt === undefined ? null : yield* checkExpiry(input.expiresAt)
        return { name, scopes, expiresAt }
      })

      const create = Effect.fn("ApiKeys.create")(function*(principal: Principal, input: CreateKeyInput) {
        const valid = yield* validate(input)
        const organisationKey = input.type === "organisation-service"
        // The organisation and workspace the key is to live in: the admin key's own organisation, or a workspace
        // (a workspace key creating another defaults to its own), which the policy then decides about.
        let place: { readonly organisationId: string; readonly workspaceId: string | null } = {
          organisationId: principal.organisationId,
          workspaceId: null
        }
        if (!organisationKey) {
          const requested = input.workspaceId ?? principal.workspaceId ?? undefined
          if (requested === undefined) {
            return yield* InvalidRequest.of("workspace_id is required for workspace keys.", "workspace_id")
          }
          const workspace = yield* requireRow(yield* workspaces.get(requested), "workspace", requested)
          place = { organisationId: workspace.organisation_id, workspaceId: workspace.id }
        } else if (input.workspaceId !== undefined) {
          return yield* InvalidRequest.of("Admin keys are organisation-wide: leave out workspace_id.", "workspace_id")
        }
        const workspaceId = place.workspaceId
        const creating = yield* ensureKeyCreation(principal, { type: input.type, ...place, scopes: valid.scopes })

        let named: string | null = null
        if (input.type === "workspace-user") {
          const requested = input.userId ?? principal.userId ?? undefined
          if (requested === undefined) {
            return yield* InvalidRequest.of("user_id is required: the calling key has no user.", "user_id")
          }
          const user = yield* requireRow(yield* users.get(requested), "user", requested)
          const membership = yield* members.get(workspaceId!, requested)
          yield* ensureKeyUser(principal, {
            userId: requested,
            organisationId: user.organisation_id,
            organisationRole: user.role,
            workspaceRole: Option.getOrNull(Option.map(membership, (m) => m.role))
          })
          named = requested
        } else if (input.userId !== undefined) {
          return yield* InvalidRequest.of("user_id applies to workspace/user keys only.", "user_id")
        }
        const userId = newKeyUser(principal, input.type, named)
        const { issued, stored } = yield* mint({
          type: input.type,
          name: valid.name,
          description: input.description ?? null,
          organisationId: principal.organisationId,
          workspaceId,
          userId,
          scopes: valid.scopes,
          expiresAt: valid.expiresAt
        }, principal)
        yield* store.insert(creating, stored)
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
        function*(principal: Principal, workspaceId: string | undefined, page: PageRequest) {
          const scope = yield* ensureListScope(principal, workspaceId, "api_keys.list")
          return yield* store.list(principal.organisationId, scope, page)
        }
      )

      const get = (principal: Principal, id: string) =>
        Effect.map(visible(principal, id, "api_keys.read"), ({ key }) => key)

      const revoke = Effect.fn("ApiKeys.revoke")(function*(principal: Principal, id: string) {
        const { allowed, key } = yield* visible(principal, id, "api_keys.delete")
        if (key.status === "revoked") return key
        const at = yield* nowIso
        yield* store.revoke(allowed, id, at)
        yield* forget((cached) => cached.id === id)
        return new ApiKey({ ...key, status: "revoked", last_updated_at: at })
      })

      /** A new name, description, expiry (null: none) or scopes: only scopes the caller holds, as at creation. */
      const update = Effect.fn("ApiKeys.update")(function*(principal: Principal, id: string, change: KeyChange) {
        const { allowed, key } = yield* visible(principal, id, "api_keys.update")
        if (key.status === "revoked") return yield* InvalidRequest.of("A revoked key cannot be changed.", null)
        if (change.name !== undefined) yield* checkName(change.name.trim())
        const scopes = change.scopes === undefined ? undefined : yield* checkScopes(change.scopes)
        if (scopes !== undefined) yield* ensureScopesGrantable(principal, scopes, { type: "API key", id })
        const expiresAt = change.expiresAt === undefined || change.expiresAt === null
          ? change.expiresAt
          : yield* checkExpiry(change.expiresAt)
        const updated = new ApiKey({
          ...key,
          name: change.name?.trim() ?? key.name,
          description: change.description === undefined ? key.description : change.description,
          scopes: scopes === undefined ? key.scopes : [...new Set(scopes)],
          expires_at: expiresAt === undefined ? key.expires_at : expiresAt,
          last_updated_at: yield* nowIso
        })
        yield* store.update(allowed, updated)
        // What the key may do changes now, not when the cached resolution lapses.
        yield* forget((cached) => cached.id === id)
        return updated
      })

      const forgetUser = (userId: string) => forget((cached) => cached.user_id === userId)

      return ApiKeys.of({ issue, authenticate, create, list, get, update, revoke, forgetUser })
    })
  )
}
