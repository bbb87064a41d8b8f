/**
 * Issuing API keys and resolving a presented key into a `Principal`.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { ApiKey, type ApiKeyType, hasKeyShape, isExpired, KEY_PREFIX, KEY_RANDOM_BYTES, maskKey } from "./ApiKey.ts"
import { type Conflict, Unauthenticated } from "./Errors.ts"
import { nowIso } from "./internal/time.ts"
import { ApiKeyStore, PlatformCrypto, UserStore, WorkspaceMemberStore } from "./Ports.ts"
import type { Principal } from "./Principal.ts"
import { isScope, type Scope } from "./Scopes.ts"

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

export class ApiKeys extends Context.Service<
  ApiKeys,
  {
    readonly issue: (input: IssueKeyInput) => Effect.Effect<IssuedKey, Conflict>
    readonly authenticate: (presented: Redacted.Redacted<string>) => Effect.Effect<Principal, Unauthenticated>
  }
>()("@gateway-control/ApiKeys") {
  static readonly layer = Layer.effect(
    ApiKeys,
    Effect.gen(function*() {
      const store = yield* ApiKeyStore
      const crypto = yield* PlatformCrypto
      const users = yield* UserStore
      const members = yield* WorkspaceMemberStore

      const issue = Effect.fn("ApiKeys.issue")(function*(input: IssueKeyInput) {
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
          last_updated_at: now,
          expires_at: input.expiresAt
        })
        yield* store.insert({ key, digest: crypto.sha256Hex(plaintext) })
        return { key, plaintext: Redacted.make(plaintext, { label: "api-key" }) }
      })

      const rejected = (message: string) => Effect.fail(new Unauthenticated({ message }))

      // Untraced: this runs on every request.
      const authenticate = Effect.fnUntraced(function*(presented: Redacted.Redacted<string>) {
        const candidate = Redacted.value(presented).trim()
        if (candidate.length === 0) {
          return yield* rejected("Missing API key: send it in the x-service-api-key header.")
        }
        if (!hasKeyShape(candidate)) {
          return yield* rejected("Invalid API key: check the x-service-api-key header.")
        }
        const digest = crypto.sha256Hex(candidate)
        const found = yield* store.findByDigest(digest)
        if (Option.isNone(found) || !crypto.digestsEqual(found.value.digest, digest)) {
          return yield* rejected("Invalid API key: check the x-service-api-key header.")
        }
        const key = found.value.key
        if (key.status === "revoked") {
          return yield* rejected("This API key has been revoked; use another key.")
        }
        if (isExpired(key, yield* nowIso)) {
          return yield* rejected(`This API key expired at ${key.expires_at}; create a new key.`)
        }
        return yield* resolvePrincipal(key)
      })

      const resolvePrincipal = Effect.fnUntraced(function*(key: ApiKey) {
        const user = key.user_id === null ? Option.none() : yield* users.get(key.user_id)
        const organisationRole = Option.isSome(user) ? user.value.role : null
        let workspaceRole: Principal["workspaceRole"] = null
        if (organisationRole === "owner" || organisationRole === "admin") {
          // Organisation owners and admins count as managers of every workspace.
          workspaceRole = "manager"
        } else if (key.workspace_id !== null && key.user_id !== null) {
          const membership = yield* members.get(key.workspace_id, key.user_id)
          workspaceRole = Option.isSome(membership) ? membership.value.role : null
        }
        const principal: Principal = {
          keyId: key.id,
          keyType: key.type,
          organisationId: key.organisation_id,
          workspaceId: key.workspace_id,
          userId: key.user_id,
          organisationRole,
          workspaceRole,
          scopes: new Set(key.scopes.filter(isScope))
        }
        return principal
      })

      return ApiKeys.of({ issue, authenticate })
    })
  )
}
