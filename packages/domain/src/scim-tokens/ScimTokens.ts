/**
 * Administering SCIM tokens (create, list, read, revoke: audited use cases under the policy), and resolving a
 * presented token into the principal a SCIM call acts as. A token is looked up on every call, never cached, so
 * revoking it refuses its next call in every process.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import type { Scope } from "../access/Scopes.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { maskKey } from "../credentials/ApiKey.ts"
import { type Forbidden, type InvalidRequest, type NotFound, requireRow, Unauthenticated } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { type CreateScimToken, SCIM_TOKEN_PREFIX, ScimToken } from "./ScimToken.ts"
import { ScimTokenStore } from "./ScimTokenStore.ts"

/** Random bytes in a token: 256 bits. */
const TOKEN_RANDOM_BYTES = 32

/**
 * What a SCIM token may do, as the principal its calls act as: manage the organisation's users and their
 * workspace memberships, and revoke the keys acting as a user it deprovisions. It has no user, so no owner
 * action is open to it (Policy.ts): SCIM never makes, changes or removes an owner.
 */
export const SCIM_SCOPES: ReadonlyArray<Scope> = [
  "organisation_users.create",
  "organisation_users.read",
  "organisation_users.list",
  "organisation_users.update",
  "organisation_users.delete",
  "workspace_users.create",
  "workspace_users.read",
  "workspace_users.list",
  "workspace_users.update",
  "workspace_users.delete",
  "workspaces.read",
  "workspaces.list",
  "api_keys.list",
  "api_keys.delete"
]

/** A token created: the record, and its secret, shown this once. */
export interface IssuedScimToken {
  readonly token: ScimToken
  readonly plaintext: Redacted.Redacted<string>
}

type AccessError = Forbidden | NotFound | StoreError

export class ScimTokens extends Context.Service<
  ScimTokens,
  {
    readonly create: (
      principal: Principal,
      input: CreateScimToken
    ) => Effect.Effect<IssuedScimToken, InvalidRequest | AccessError>
    readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<ScimToken>, AccessError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<ScimToken, AccessError>
    /** Revokes the token: its next call is refused, in every process. Revoking a revoked token changes nothing. */
    readonly revoke: (principal: Principal, id: string) => Effect.Effect<ScimToken, AccessError>
    /** The principal a presented SCIM token acts as; `Unauthenticated` for anything but an active token. */
    readonly authenticate: (
      presented: Redacted.Redacted<string>
    ) => Effect.Effect<Principal, Unauthenticated | StoreError>
  }
>()("@gateway-control/ScimTokens") {
  static readonly layer = Layer.effect(
    ScimTokens,
    Effect.gen(function*() {
      const unguarded = yield* ScimTokenStore
      const store = grantedWrites(unguarded, { insert: "scim_tokens.create", revoke: "scim_tokens.revoke" })
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase

      const organisation = (principal: Principal) => ({
        target: Target.organisation(principal.organisationId),
        resource: { type: "organisation", id: principal.organisationId }
      })

      const create = Effect.fn("ScimTokens.create")(function*(principal: Principal, input: CreateScimToken) {
        const { resource, target } = organisation(principal)
        const grant = yield* ensureAllowed(principal, "scim_tokens.create", target, resource)
        const name = input.name.trim()
        yield* checkName(name)
        const plaintext = `${SCIM_TOKEN_PREFIX}${crypto.randomToken(TOKEN_RANDOM_BYTES)}`
        const now = yield* nowIso
        const token = new ScimToken({
          id: crypto.uuid(),
          organisation_id: principal.organisationId,
          name,
          masked_token: maskKey(plaintext),
          status: "active",
          created_at: now,
          created_by_user_id: principal.userId,
          created_by_api_key_id: principal.keyId,
          revoked_at: null,
          last_updated_at: now
        })
        yield* store.insert(grant, { token, digest: crypto.sha256Hex(plaintext) })
        return { token, plaintext: Redacted.make(plaintext, { label: "scim-token" }) }
      })

      const list = Effect.fn("ScimTokens.list")(function*(principal: Principal, page: PageRequest) {
        const { resource, target } = organisation(principal)
        yield* ensureAllowed(principal, "scim_tokens.list", target, resource)
        return yield* store.list(principal.organisationId, page)
      })

      /** The token, when the principal may `action` it; another organisation's answers not found. */
      const visible = Effect.fnUntraced(function*<A extends "scim_tokens.read" | "scim_tokens.revoke">(
        principal: Principal,
        id: string,
        action: A
      ) {
        const token = yield* requireRow(yield* store.get(id), "scim token", id)
        const grant = yield* ensureAllowed(principal, action, Target.organisation(token.organisation_id), {
          type: "scim token",
          id
        })
        return { grant, token }
      })

      const get = (principal: Principal, id: string) =>
        Effect.map(visible(principal, id, "scim_tokens.read"), ({ token }) => token)

      const revoke = Effect.fn("ScimTokens.revoke")(function*(principal: Principal, id: string) {
        const { grant, token } = yield* visible(principal, id, "scim_tokens.revoke")
        if (token.status === "revoked") return token
        const at = yield* nowIso
        yield* store.revoke(grant, id, at)
        return new ScimToken({ ...token, status: "revoked", revoked_at: at, last_updated_at: at })
      })

      const refused = new Unauthenticated({ message: "Invalid or revoked SCIM token.", credential: "unrecognised" })

      const authenticate = Effect.fn("ScimTokens.authenticate")(function*(presented: Redacted.Redacted<string>) {
        const secret = Redacted.value(presented)
        if (secret.length === 0) {
          return yield* new Unauthenticated({ message: "A SCIM token is required.", credential: "missing" })
        }
        if (!secret.startsWith(SCIM_TOKEN_PREFIX) || secret.length > 128) return yield* refused
        const found = yield* unguarded.findByDigest(crypto.sha256Hex(secret))
        if (Option.isNone(found) || found.value.status !== "active") return yield* refused
        const token = found.value
        const principal: Principal = {
          keyId: token.id,
          keyType: "organisation-service",
          organisationId: token.organisation_id,
          workspaceId: null,
          userId: null,
          organisationRole: null,
          workspaceRole: null,
          scopes: new Set(SCIM_SCOPES),
          expiresAt: null
        }
        return principal
      })

      return ScimTokens.of({
        create: (principal, input) =>
          useCases.run(
            {
              useCase: "scimTokens.create",
              actor: principal,
              resourceId: (issued) => issued.token.id,
              workspaceId: null,
              body: input
            },
            create(principal, input)
          ),
        list,
        get,
        revoke: (principal, id) =>
          useCases.run(
            { useCase: "scimTokens.revoke", actor: principal, resourceId: id, workspaceId: null, body: null },
            revoke(principal, id)
          ),
        authenticate
      })
    })
  )
}
