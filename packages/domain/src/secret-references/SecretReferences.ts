/**
 * Administering secret references (create, list, read, change, delete: organisation owners' and admins' admin
 * keys, each change audited), and using one: `resolve` fetches the secret for a record that names the
 * reference, when it calls out, and audits the use.
 *
 * The value is fetched through the `SecretManagers` port, kept in the process for `SECRET_CACHE_TTL_MS` at
 * most (a change of the reference drops it), and handed on `Redacted`: it is never stored, logged or
 * answered. A reference is used only by records of the workspaces it allows; the record's own stored-secret
 * rule (StoredSecretBinding.ts) binds it to the record's destination. The reference's login follows that rule
 * too: a change of where the login is sent (Vault's address, an endpoint) must give its secret fields again.
 */
import { Clock, Context, Effect, Layer, Option, Predicate, Redacted } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { makeAddressGuard } from "../fine-tuning/CustomHosts.ts"
import { SecretCipher } from "../fine-tuning/Providers.ts"
import { type Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { parseHttpUrl } from "../shared/HttpUrl.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import { type SecretBinding, secretBoundWrites } from "../shared/StoredSecretBinding.ts"
import type { StoreError } from "../shared/StoreError.ts"
import type { SecretManagerError } from "./SecretManagers.ts"
import { SecretManagers, SecretReferenceSettings, type SecretValue } from "./SecretManagers.ts"
import {
  type AuthConfig,
  type CreateSecretReference,
  SecretReference,
  type SecretReferenceFilter,
  type StoredSecretReference,
  type UpdateSecretReference
} from "./SecretReference.ts"
import {
  checkAuthConfig,
  DESTINATION_FIELD,
  LOGIN_URL_FIELDS,
  loginDestination,
  splitAuthConfig
} from "./SecretReferenceRules.ts"
import { SecretReferenceStore } from "./SecretReferenceStore.ts"

type AccessError = Forbidden | NotFound | StoreError
type WriteError = InvalidRequest | AccessError | Conflict

/** What a secret field of a login reads as. */
export const MASKED_SECRET = "********"

/** One use of a reference by a record that calls out. */
export interface SecretUse {
  readonly organisationId: string
  /** The record's workspace; null for an organisation-level record (it may use references open to all). */
  readonly workspaceId: string | null
  /** The reference's id or slug, as the record names it. */
  readonly reference: string
  /** The field of a JSON secret to use instead of the reference's own `secret_key`. */
  readonly secretKey?: string | null | undefined
  /** Where the record sends the value: its URL. */
  readonly destination: URL
  /** The record, for the audit record (`{ type: "mcp_integration", id }`). */
  readonly usedBy: { readonly type: string; readonly id: string }
  /** The request field that names the reference: refusals name it. */
  readonly param: string
}

export class SecretReferences extends Context.Service<
  SecretReferences,
  {
    readonly create: (principal: Principal, input: CreateSecretReference) => Effect.Effect<SecretReference, WriteError>
    readonly list: (
      principal: Principal,
      filter: SecretReferenceFilter,
      page: PageRequest
    ) => Effect.Effect<Page<SecretReference>, AccessError>
    /** `ref` is the reference's id or slug. */
    readonly get: (principal: Principal, ref: string) => Effect.Effect<SecretReference, AccessError>
    readonly update: (
      principal: Principal,
      ref: string,
      input: UpdateSecretReference
    ) => Effect.Effect<SecretReference, WriteError>
    readonly delete: (principal: Principal, ref: string) => Effect.Effect<SecretReference, AccessError>
    /**
     * The secret a record names, fetched (or from the brief cache) and audited as a use; refused naming
     * `use.param` when the reference is unknown, not open to the record's workspace, or its manager refuses.
     */
    readonly resolve: (use: SecretUse) => Effect.Effect<Redacted.Redacted<SecretValue>, InvalidRequest | StoreError>
  }
>()("@gateway-control/SecretReferences") {
  static readonly layer = Layer.effect(
    SecretReferences,
    Effect.gen(function*() {
      const raw = yield* SecretReferenceStore
      const granted = grantedWrites(raw, {
        insert: "secret_references.create",
        update: "secret_references.update",
        delete: "secret_references.delete"
      })
      const workspaces = yield* WorkspaceStore
      const cipher = yield* SecretCipher
      const crypto = yield* PlatformCrypto
      const managers = yield* SecretManagers
      const useCases = yield* AuditedUseCase
      const guard = yield* makeAddressGuard
      /** Fetched values by reference id and version; dropped when they expire or the reference changes. */
      const cache = new Map<string, { readonly value: Redacted.Redacted<SecretValue>; readonly until: number }>()

      /** Drops the values fetched for a reference: its change or deletion takes effect at once in this process. */
      const forget = (id: string) => {
        for (const key of cache.keys()) if (key.startsWith(`${id}|`)) cache.delete(key)
      }

      const bindingOf = (managerType: SecretReference["manager_type"]): SecretBinding<StoredSecretReference> => ({
        destination: (stored) => loginDestination(managerType, stored.record.auth_config),
        destinationField: DESTINATION_FIELD[managerType],
        secrets: (stored) =>
          new Map(Object.entries(stored.encryptedAuth).map(([field, value]) => [`auth_config.${field}`, value]))
      })

      /** The record's `auth_config`: the open fields as given, the secret ones masked. */
      const recordAuth = (open: AuthConfig, secret: AuthConfig): AuthConfig => ({
        ...open,
        ...Object.fromEntries(Object.keys(secret).map((field) => [field, MASKED_SECRET]))
      })

      /** The workspaces `allowed` names (ids or slugs), as ids of the organisation's workspaces. */
      const workspaceIds = Effect.fnUntraced(function*(organisationId: string, allowed: ReadonlyArray<string>) {
        const ids: Array<string> = []
        for (const [i, ref] of allowed.entries()) {
          const byId = Option.filter(yield* workspaces.get(ref), (w) => w.organisation_id === organisationId)
          const found = Option.isSome(byId) ? byId : yield* workspaces.findBySlug(organisationId, ref)
          if (Option.isNone(found)) {
            return yield* InvalidRequest.of(
              `allowed_workspaces[${i}] names no workspace of this organisation: '${ref}'.`,
              `allowed_workspaces[${i}]`
            )
          }
          if (!ids.includes(found.value.id)) ids.push(found.value.id)
        }
        return ids
      })

      const checkAccess = (allowAll: boolean | undefined, allowed: ReadonlyArray<string> | undefined) =>
        allowAll === true && allowed !== undefined
          ? Effect.fail(
            InvalidRequest.of(
              "allow_all_workspaces cannot be true when allowed_workspaces is given.",
              "allow_all_workspaces"
            )
          )
          : allowed !== undefined && allowed.length === 0
          ? Effect.fail(InvalidRequest.of("allowed_workspaces must name at least one workspace.", "allowed_workspaces"))
          : Effect.void

      const checkFields = Effect.fnUntraced(function*(input: {
        readonly secret_path?: string | undefined
        readonly secret_key?: string | null | undefined
        readonly description?: string | null | undefined
      }) {
        if (input.secret_path !== undefined && input.secret_path.trim().length === 0) {
          return yield* InvalidRequest.of("secret_path must name where the secret is in its manager.", "secret_path")
        }
        if (input.secret_key !== undefined && input.secret_key !== null && input.secret_key.length === 0) {
          return yield* InvalidRequest.of(
            "secret_key must be a field name, or null for the whole secret.",
            "secret_key"
          )
        }
      })

      const encryptAll = (secret: AuthConfig) =>
        Object.fromEntries(Object.entries(secret).map(([field, value]) => [field, cipher.encrypt(value)]))

      const create = Effect.fn("SecretReferences.create")(
        function*(principal: Principal, input: CreateSecretReference) {
          // Another organisation's id is the policy's to refuse (it hides what the key cannot reach).
          const organisationId = input.organisation_id ?? principal.organisationId
          const id = crypto.uuid()
          const grant = yield* ensureAllowed(
            principal,
            "secret_references.create",
            Target.organisation(organisationId),
            { type: "organisation", id: organisationId }
          )
          yield* checkName(input.name)
          const slug = input.slug ?? slugify(input.name)
          yield* checkSlug(slug, { minimum: 1, maximum: 255 })
          yield* checkFields(input)
          const auth = input.auth_config ?? {}
          const refusal = checkAuthConfig(input.manager_type, auth)
          if (refusal !== undefined) return yield* refusal
          yield* checkAccess(input.allow_all_workspaces, input.allowed_workspaces)
          const allowed = input.allowed_workspaces === undefined
            ? []
            : yield* workspaceIds(organisationId, input.allowed_workspaces)
          const { open, secret } = splitAuthConfig(auth)
          const now = yield* nowIso
          const record = new SecretReference({
            id,
            organisation_id: organisationId,
            name: input.name.trim(),
            slug,
            description: input.description ?? null,
            manager_type: input.manager_type,
            auth_config: recordAuth(open, secret),
            secret_path: input.secret_path.trim(),
            secret_key: input.secret_key ?? null,
            allow_all_workspaces: input.allowed_workspaces === undefined,
            allowed_workspaces: allowed,
            tags: input.tags ?? null,
            status: "ACTIVE",
            // A person signed in has no key, but always a user.
            created_by: principal.userId ?? principal.keyId ?? "",
            created_at: now,
            last_updated_at: now
          })
          yield* granted.insert(grant, { record, encryptedAuth: encryptAll(secret) })
          return record
        }
      )

      /** The reference `ref` (id or slug) names in the principal's organisation, as stored. */
      const find = Effect.fnUntraced(function*(organisationId: string, ref: string) {
        const byId = Option.filter(yield* raw.get(ref), (s) => s.record.organisation_id === organisationId)
        return Option.isSome(byId) ? byId : yield* raw.findBySlug(organisationId, ref)
      })

      const visible = Effect.fnUntraced(function*<
        A extends "secret_references.read" | "secret_references.update" | "secret_references.delete"
      >(principal: Principal, ref: string, action: A) {
        const stored = yield* requireRow(yield* find(principal.organisationId, ref), "secret reference", ref)
        const grant = yield* ensureAllowed(
          principal,
          action,
          Target.organisation(stored.record.organisation_id),
          { type: "secret reference", id: ref }
        )
        return { grant, stored }
      })

      const list = Effect.fn("SecretReferences.list")(
        function*(principal: Principal, filter: SecretReferenceFilter, page: PageRequest) {
          yield* ensureAllowed(principal, "secret_references.list", Target.organisation(principal.organisationId), {
            type: "organisation",
            id: principal.organisationId
          })
          return yield* raw.list(principal.organisationId, filter, page)
        }
      )

      const get = (principal: Principal, ref: string) =>
        Effect.map(visible(principal, ref, "secret_references.read"), ({ stored }) => stored.record)

      const update = Effect.fn("SecretReferences.update")(
        function*(principal: Principal, ref: string, input: UpdateSecretReference) {
          const { grant, stored } = yield* visible(principal, ref, "secret_references.update")
          const current = stored.record
          if (input.name !== undefined) yield* checkName(input.name)
          yield* checkFields(input)
          yield* checkAccess(input.allow_all_workspaces, input.allowed_workspaces)
          if (input.allow_all_workspaces === false && input.allowed_workspaces === undefined) {
            return yield* InvalidRequest.of(
              "allow_all_workspaces false needs allowed_workspaces: the workspaces that may use the reference.",
              "allowed_workspaces"
            )
          }
          // The merged login: the stored open fields, the stored secrets (kept encrypted), what the request gives.
          const given = input.auth_config ?? {}
          const openStored = Object.fromEntries(
            Object.entries(current.auth_config).filter(([field]) => !Object.hasOwn(stored.encryptedAuth, field))
          )
          const { open: openGiven, secret: secretGiven } = splitAuthConfig(given)
          const open = { ...openStored, ...openGiven }
          // The check sees every secret field present, given or stored (the stored ones only by name).
          const refusal = checkAuthConfig(current.manager_type, {
            ...open,
            ...Object.fromEntries(Object.keys(stored.encryptedAuth).map((field) => [field, MASKED_SECRET])),
            ...secretGiven
          })
          if (refusal !== undefined) return yield* refusal
          const allowed = input.allowed_workspaces === undefined
            ? undefined
            : yield* workspaceIds(current.organisation_id, input.allowed_workspaces)
          const secretFields = { ...stored.encryptedAuth, ...encryptAll(secretGiven) }
          const record = new SecretReference({
            ...current,
            name: input.name?.trim() ?? current.name,
            description: input.description === undefined ? current.description : input.description,
            auth_config: recordAuth(open, secretFields),
            secret_path: input.secret_path?.trim() ?? current.secret_path,
            secret_key: input.secret_key === undefined ? current.secret_key : input.secret_key,
            allow_all_workspaces: allowed !== undefined
              ? false
              : input.allow_all_workspaces ?? current.allow_all_workspaces,
            allowed_workspaces: allowed ?? (input.allow_all_workspaces === true ? [] : current.allowed_workspaces),
            tags: input.tags === undefined ? current.tags : input.tags,
            last_updated_at: yield* nowIso
          })
          const store = secretBoundWrites(granted, bindingOf(current.manager_type))
          yield* store.update(grant, {
            current: stored,
            updated: { record, encryptedAuth: secretFields },
            supplied: Object.keys(secretGiven).map((field) => `auth_config.${field}`)
          })
          forget(current.id)
          return record
        }
      )

      const remove = Effect.fn("SecretReferences.delete")(function*(principal: Principal, ref: string) {
        const { grant, stored } = yield* visible(principal, ref, "secret_references.delete")
        yield* granted.delete(grant, stored.record.id)
        forget(stored.record.id)
        return stored.record
      })

      /** The login in clear: the open fields and the decrypted secret ones. */
      const loginOf = (stored: StoredSecretReference): AuthConfig | undefined => {
        const auth: Record<string, string> = {}
        for (const [field, value] of Object.entries(stored.record.auth_config)) {
          if (!Object.hasOwn(stored.encryptedAuth, field)) auth[field] = value
        }
        for (const [field, ciphertext] of Object.entries(stored.encryptedAuth)) {
          const plain = cipher.decrypt(ciphertext)
          if (plain === undefined) return undefined
          auth[field] = plain
        }
        return auth
      }

      /** The value with the field `key` picked out of a JSON secret, when there is a key. */
      const pick = (value: SecretValue, key: string | null, param: string) => {
        if (key === null) return Effect.succeed(value)
        let fields: unknown = value
        if (typeof value === "string") {
          try {
            fields = JSON.parse(value)
          } catch {
            fields = undefined
          }
        }
        const field = Predicate.isObject(fields) && !Array.isArray(fields) && Object.hasOwn(fields, key)
          ? (fields as Record<string, unknown>)[key]
          : undefined
        return typeof field === "string" || typeof field === "number"
          ? Effect.succeed(String(field))
          : Effect.fail(InvalidRequest.of(`${param} names a secret that has no string field '${key}'.`, param))
      }

      const fetchValue = Effect.fnUntraced(function*(use: SecretUse): Effect.fn.Return<
        { readonly reference: SecretReference; readonly value: Redacted.Redacted<SecretValue> },
        InvalidRequest | StoreError
      > {
        const found = yield* find(use.organisationId, use.reference)
        if (Option.isNone(found)) {
          return yield* InvalidRequest.of(
            `${use.param} names no secret reference of this organisation: '${use.reference}'.`,
            use.param
          )
        }
        const stored = found.value
        const reference = stored.record
        const open = reference.allow_all_workspaces ||
          (use.workspaceId !== null && reference.allowed_workspaces.includes(use.workspaceId))
        if (!open) {
          return yield* InvalidRequest.of(
            `${use.param} names a secret reference that ${
              use.workspaceId === null ? "is not open to every workspace" : "this workspace may not use"
            }.`,
            use.param
          )
        }
        const now = yield* Clock.currentTimeMillis
        const settings = yield* SecretReferenceSettings
        const cacheKey = `${reference.id}|${reference.last_updated_at}|${use.destination.host}`
        const cached = cache.get(cacheKey)
        let value: Redacted.Redacted<SecretValue>
        if (cached !== undefined && cached.until > now) {
          value = cached.value
        } else {
          const auth = loginOf(stored)
          if (auth === undefined) {
            return yield* InvalidRequest.of(
              `${use.param} names a secret reference whose login cannot be decrypted with this master key.`,
              use.param
            )
          }
          // The manager's addresses through the same guard as provider and MCP calls: internal ones only when
          // trusted (TRUSTED_CUSTOM_HOSTS); the connections are then pinned to the addresses checked.
          const pins = new Map<string, ReadonlyArray<string>>()
          for (const field of LOGIN_URL_FIELDS) {
            const value = auth[field]
            const url = value === undefined ? undefined : parseHttpUrl(value)
            if (url instanceof URL) {
              const pinned = yield* guard(url, `The secret reference's auth_config.${field} host`, use.param)
              if (pinned !== undefined) pins.set(url.host, pinned)
            }
          }
          value = yield* managers.fetch({
            managerType: reference.manager_type,
            auth: Redacted.make(auth),
            secretPath: reference.secret_path,
            destinationHost: use.destination.host,
            pins
          }).pipe(
            Effect.mapError((error: SecretManagerError) =>
              InvalidRequest.of(
                `${use.param}: the secret manager of reference '${reference.slug}' refused: ${error.message}`,
                use.param
              )
            )
          )
          if (settings.cacheTtlMs > 0) cache.set(cacheKey, { value, until: now + settings.cacheTtlMs })
        }
        const key = use.secretKey === undefined ? reference.secret_key : use.secretKey
        const picked = yield* pick(Redacted.value(value), key, use.param)
        return { reference, value: Redacted.make(picked) }
      })

      interface Fetched {
        readonly reference: SecretReference
        readonly value: Redacted.Redacted<SecretValue>
      }

      const resolve = (use: SecretUse) =>
        useCases.runSteps<Fetched, Fetched, InvalidRequest | StoreError, never, never, never>(
          {
            useCase: "secretReferences.use",
            actor: { organisationId: use.organisationId, keyId: null, userId: null },
            resourceId: ({ reference }) => reference.id,
            requestedId: use.reference,
            workspaceId: use.workspaceId,
            body: { used_by: use.usedBy.type, used_by_id: use.usedBy.id, destination: use.destination.host }
          },
          fetchValue(use),
          (fetched) => Effect.succeed(fetched)
        ).pipe(Effect.map((fetched) => fetched.value))

      return SecretReferences.of({
        create: (principal, input) =>
          useCases.run(
            {
              useCase: "secretReferences.create",
              actor: principal,
              resourceId: (reference) => reference.id,
              workspaceId: null,
              body: input
            },
            create(principal, input)
          ),
        list,
        get,
        update: (principal, ref, input) =>
          useCases.run(
            {
              useCase: "secretReferences.update",
              actor: principal,
              resourceId: (reference) => reference.id,
              requestedId: ref,
              workspaceId: null,
              body: input
            },
            update(principal, ref, input)
          ),
        delete: (principal, ref) =>
          useCases.run(
            {
              useCase: "secretReferences.delete",
              actor: principal,
              resourceId: (reference) => reference.id,
              requestedId: ref,
              workspaceId: null,
              body: null
            },
            remove(principal, ref)
          ),
        resolve
      })
    })
  )
}
