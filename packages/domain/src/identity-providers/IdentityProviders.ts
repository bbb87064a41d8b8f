/**
 * Administering identity providers: create, list, read, change, delete, each change an audited use case that
 * organisation owners' and admins' admin keys may make (Policy.ts). A role map that makes owners is an owner's to
 * write: no admin opens a second path to owner. The operator's provider (environment or embedding options) is
 * not stored and not changed here; the public list of sign-in choices shows it first.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { OrganisationStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import { SecretCipher } from "../fine-tuning/Providers.ts"
import { Conflict, type Forbidden, type InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkSlug } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import {
  type CreateIdentityProvider,
  IdentityProvider,
  type RoleMap,
  type SignInOption,
  type UpdateIdentityProvider
} from "./IdentityProvider.ts"
import { checkClientSecret, checkProviderFields, grantsOwner, secretHint } from "./IdentityProviderRules.ts"
import { IdentityProviderSettings, OPERATOR_PROVIDER_SLUG } from "./IdentityProviderSettings.ts"
import { IdentityProviderStore } from "./IdentityProviderStore.ts"

type AccessError = Forbidden | NotFound | StoreError
type WriteError = InvalidRequest | Conflict | AccessError

/** A provider as sign-in uses it: its fields and its client secret. */
export interface ResolvedIdentityProvider {
  readonly provider: IdentityProvider
  readonly clientSecret: Redacted.Redacted<string>
}

export class IdentityProviders extends Context.Service<
  IdentityProviders,
  {
    readonly create: (
      principal: Principal,
      input: CreateIdentityProvider
    ) => Effect.Effect<IdentityProvider, WriteError>
    readonly list: (principal: Principal, page: PageRequest) => Effect.Effect<Page<IdentityProvider>, AccessError>
    readonly get: (principal: Principal, id: string) => Effect.Effect<IdentityProvider, AccessError>
    /** Changes the fields given; the others (the secret included) keep their value. */
    readonly update: (
      principal: Principal,
      id: string,
      input: UpdateIdentityProvider
    ) => Effect.Effect<IdentityProvider, WriteError>
    /** Deletes the provider: nobody signs in with it again. Sessions already open stay until they end. */
    readonly delete: (principal: Principal, id: string) => Effect.Effect<IdentityProvider, AccessError>
    /** The enabled providers, the operator's first: public, for the sign-in page. */
    readonly signInOptions: Effect.Effect<ReadonlyArray<SignInOption>, StoreError>
    /** The enabled provider named by its slug, with its secret; none when unknown or disabled. */
    readonly resolve: (slug: string) => Effect.Effect<Option.Option<ResolvedIdentityProvider>, StoreError>
    /**
     * The role maps of the organisation's enabled providers, the operator's first: what SCIM groups map to
     * roles through (scim/ScimGroups.ts), as sign-in maps a provider's groups.
     */
    readonly roleMaps: (organisationId: string) => Effect.Effect<ReadonlyArray<RoleMap>, StoreError>
    /** Any provider by id, enabled or not (a sign-in under way names its provider by id). */
    readonly resolveId: (id: string) => Effect.Effect<Option.Option<ResolvedIdentityProvider>, StoreError>
  }
>()("@gateway-control/IdentityProviders") {
  static readonly layer = Layer.effect(
    IdentityProviders,
    Effect.gen(function*() {
      const rawStore = yield* IdentityProviderStore
      const store = grantedWrites(rawStore, {
        insert: ["identity_providers.create", "identity_providers.create.owner"],
        update: ["identity_providers.update", "identity_providers.update.owner"],
        delete: "identity_providers.delete"
      })
      const organisations = yield* OrganisationStore
      const settings = yield* IdentityProviderSettings
      const cipher = yield* SecretCipher
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase

      const organisation = (principal: Principal) => ({
        target: Target.organisation(principal.organisationId),
        ref: { type: "organisation", id: principal.organisationId }
      })

      const decrypt = (encrypted: string, slug: string) => {
        const secret = cipher.decrypt(encrypted)
        return secret === undefined
          ? Effect.die(
            new Error(
              `The client secret of identity provider '${slug}' cannot be decrypted: was GATEWAY_MASTER_KEY changed?`
            )
          )
          : Effect.succeed(Redacted.make(secret))
      }

      /** The operator's provider, in the first organisation; none before bootstrap or when not configured. */
      const operatorProvider = Effect.gen(function*() {
        const configured = settings.operatorProvider
        if (configured === null) return Option.none<ResolvedIdentityProvider>()
        const first = yield* organisations.first
        if (Option.isNone(first)) return Option.none<ResolvedIdentityProvider>()
        const provider = new IdentityProvider({
          id: OPERATOR_PROVIDER_SLUG,
          organisation_id: first.value.id,
          slug: OPERATOR_PROVIDER_SLUG,
          name: new URL(configured.issuer).host,
          issuer: configured.issuer,
          client_id: configured.clientId,
          client_secret_hint: secretHint(Redacted.value(configured.clientSecret)),
          groups_claim: configured.groupsClaim,
          role_map: configured.roleMap,
          allowed_domains: configured.allowedDomains,
          enabled: true,
          source: "environment",
          created_at: first.value.created_at,
          last_updated_at: first.value.created_at
        })
        return Option.some<ResolvedIdentityProvider>({ provider, clientSecret: configured.clientSecret })
      })

      const resolved = (found: Option.Option<{ provider: IdentityProvider; encryptedSecret: string }>) =>
        Option.isNone(found)
          ? Effect.succeed(Option.none<ResolvedIdentityProvider>())
          : Effect.map(
            decrypt(found.value.encryptedSecret, found.value.provider.slug),
            (clientSecret) => Option.some<ResolvedIdentityProvider>({ provider: found.value.provider, clientSecret })
          )

      const resolveId = (id: string) =>
        id === OPERATOR_PROVIDER_SLUG ? operatorProvider : Effect.flatMap(rawStore.get(id), resolved)

      const resolve = (slug: string) =>
        slug === OPERATOR_PROVIDER_SLUG
          ? operatorProvider
          : Effect.map(
            Effect.flatMap(rawStore.findBySlug(slug), resolved),
            Option.filter((found) => found.provider.enabled)
          )

      const startUrl = (slug: string) =>
        settings.publicUrl === null ? `/auth/oidc/${slug}/start` : `${settings.publicUrl}/auth/oidc/${slug}/start`

      const signInOptions = Effect.gen(function*() {
        const operator = yield* operatorProvider
        const stored = yield* rawStore.listEnabled
        return [...Option.toArray(operator).map((o) => o.provider), ...stored].map((provider): SignInOption => ({
          slug: provider.slug,
          name: provider.name,
          start_url: startUrl(provider.slug)
        }))
      })

      const roleMaps = Effect.fnUntraced(function*(organisationId: string) {
        const operator = Option.filter(yield* operatorProvider, (o) => o.provider.organisation_id === organisationId)
        const stored = (yield* rawStore.listEnabled).filter((provider) => provider.organisation_id === organisationId)
        return [...Option.toArray(operator).map((o) => o.provider), ...stored].map((provider) => provider.role_map)
      })

      const reservedSlug = (slug: string) =>
        slug === OPERATOR_PROVIDER_SLUG
          ? Effect.fail(
            new Conflict({ message: `The slug '${slug}' is the operator's provider's (OIDC_ISSUER).`, param: "slug" })
          )
          : Effect.void

      const create = Effect.fn("IdentityProviders.create")(
        function*(principal: Principal, input: CreateIdentityProvider) {
          const { ref, target } = organisation(principal)
          const roleMap = input.role_map ?? {}
          const grant = yield* ensureAllowed(
            principal,
            grantsOwner(roleMap) ? "identity_providers.create.owner" : "identity_providers.create",
            target,
            ref
          )
          const slug = input.slug ?? slugify(input.name)
          yield* checkSlug(slug)
          yield* reservedSlug(slug)
          const valid = yield* checkProviderFields({
            name: input.name,
            issuer: input.issuer,
            client_id: input.client_id,
            groups_claim: input.groups_claim ?? "groups",
            role_map: roleMap,
            allowed_domains: input.allowed_domains ?? []
          })
          const secret = yield* checkClientSecret(input.client_secret)
          const now = yield* nowIso
          const provider = new IdentityProvider({
            ...valid,
            id: crypto.uuid(),
            organisation_id: principal.organisationId,
            slug,
            client_secret_hint: secretHint(secret),
            enabled: input.enabled ?? true,
            source: "api",
            created_at: now,
            last_updated_at: now
          })
          yield* store.insert(grant, { provider, encryptedSecret: cipher.encrypt(secret) })
          return provider
        }
      )

      /** The stored provider, when the principal may see it: another organisation's answers not found. */
      const visible = Effect.fnUntraced(function*<A extends "identity_providers.read" | "identity_providers.delete">(
        principal: Principal,
        id: string,
        action: A
      ) {
        const stored = yield* requireRow(yield* rawStore.get(id), "identity provider", id)
        const grant = yield* ensureAllowed(
          principal,
          action,
          Target.organisation(stored.provider.organisation_id),
          { type: "identity provider", id }
        )
        return { grant, stored }
      })

      const list = Effect.fn("IdentityProviders.list")(function*(principal: Principal, page: PageRequest) {
        const { ref, target } = organisation(principal)
        yield* ensureAllowed(principal, "identity_providers.list", target, ref)
        return yield* rawStore.list(principal.organisationId, page)
      })

      const get = (principal: Principal, id: string) =>
        Effect.map(visible(principal, id, "identity_providers.read"), ({ stored }) => stored.provider)

      const update = Effect.fn("IdentityProviders.update")(
        function*(principal: Principal, id: string, input: UpdateIdentityProvider) {
          const { stored } = yield* visible(principal, id, "identity_providers.read")
          const current = stored.provider
          const roleMap = input.role_map ?? current.role_map
          // Changing a map that makes owners, or making one, is an owner's.
          const ownerChange = grantsOwner(roleMap) || grantsOwner(current.role_map)
          const grant = yield* ensureAllowed(
            principal,
            ownerChange && input.role_map !== undefined
              ? "identity_providers.update.owner"
              : "identity_providers.update",
            Target.organisation(current.organisation_id),
            { type: "identity provider", id }
          )
          const slug = input.slug ?? current.slug
          yield* checkSlug(slug)
          yield* reservedSlug(slug)
          const valid = yield* checkProviderFields({
            name: input.name ?? current.name,
            issuer: input.issuer ?? current.issuer,
            client_id: input.client_id ?? current.client_id,
            groups_claim: input.groups_claim ?? current.groups_claim,
            role_map: roleMap,
            allowed_domains: input.allowed_domains ?? current.allowed_domains
          })
          const secret = input.client_secret === undefined ? undefined : yield* checkClientSecret(input.client_secret)
          const changed = new IdentityProvider({
            ...current,
            ...valid,
            slug,
            enabled: input.enabled ?? current.enabled,
            client_secret_hint: secret === undefined ? current.client_secret_hint : secretHint(secret),
            last_updated_at: yield* nowIso
          })
          yield* store.update(grant, {
            provider: changed,
            encryptedSecret: secret === undefined ? stored.encryptedSecret : cipher.encrypt(secret)
          })
          return changed
        }
      )

      const remove = Effect.fn("IdentityProviders.delete")(function*(principal: Principal, id: string) {
        const { grant, stored } = yield* visible(principal, id, "identity_providers.delete")
        yield* store.delete(grant, id)
        return stored.provider
      })

      const change = (
        useCase: "identityProviders.update" | "identityProviders.delete",
        principal: Principal,
        body: unknown,
        id: string
      ) => ({
        useCase,
        actor: principal,
        resourceId: id,
        workspaceId: null,
        body
      })

      return IdentityProviders.of({
        roleMaps,
        create: (principal, input) =>
          useCases.run(
            {
              useCase: "identityProviders.create",
              actor: principal,
              resourceId: (provider) => provider.id,
              workspaceId: null,
              body: input
            },
            create(principal, input)
          ),
        list,
        get,
        update: (principal, id, input) =>
          useCases.run(change("identityProviders.update", principal, input, id), update(principal, id, input)),
        delete: (principal, id) =>
          useCases.run(change("identityProviders.delete", principal, null, id), remove(principal, id)),
        signInOptions,
        resolve,
        resolveId
      })
    })
  )
}
