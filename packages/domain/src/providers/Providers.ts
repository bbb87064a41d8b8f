/**
 * Administering providers (Portkey's `/providers` family), a workspace's handles on the integrations it may
 * use, under the virtual keys' scopes (providers replace virtual keys), each change audited; and resolving
 * `@slug` for a call: the provider's integration's credential, sent only to the integration's destination.
 */
import { Clock, Context, Effect, Layer, Option } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { ensureAllowed, ensureListScope, openToWorkspace, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { findByIdOrSlug } from "../access/ResourceLookup.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import { checkUsageLimits } from "../credentials/UsageLimits.ts"
import type { ResolvedVirtualKey } from "../credentials/VirtualKey.ts"
import { isVirtualKeyProvider } from "../credentials/VirtualKeys.ts"
import { type Integration, OPENAI_COMPATIBLE } from "../integrations/Integration.ts"
import { integrationAccessTarget, Integrations } from "../integrations/Integrations.ts"
import { IntegrationStore } from "../integrations/IntegrationStore.ts"
import type { Conflict } from "../shared/Errors.ts"
import { type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { type CreateProvider, Provider, type UpdateProvider } from "./Provider.ts"
import { ProviderStore } from "./ProviderStore.ts"

type AccessError = Forbidden | NotFound | StoreError
type WriteError = InvalidRequest | AccessError | Conflict

/** The provider as read now: `expired` once its `expires_at` has passed. */
const asOf = (provider: Provider, nowMs: number): Provider =>
  provider.expires_at !== null && Date.parse(provider.expires_at) <= nowMs && provider.status !== "expired"
    ? new Provider({ ...provider, status: "expired" })
    : provider

const isoInstant = (value: string, param: string) =>
  /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value))
    ? Effect.succeed(new Date(Date.parse(value)).toISOString())
    : Effect.fail(InvalidRequest.of(`${param} must be an ISO 8601 date-time.`, param))

/** The models the provider names, each one its integration allows. */
const checkModels = (models: ReadonlyArray<string>, integration: Integration) => {
  if (integration.allow_all_models) return Effect.void
  const allowed = new Set(integration.models.filter((m) => m.enabled).map((m) => m.slug))
  const refused = models.find((model) => !allowed.has(model))
  return refused === undefined
    ? Effect.void
    : Effect.fail(
      InvalidRequest.of(`Model '${refused}' is not allowed by integration '${integration.slug}'.`, "models")
    )
}

export class Providers extends Context.Service<
  Providers,
  {
    readonly create: (principal: Principal, input: CreateProvider) => Effect.Effect<Provider, WriteError>
    readonly list: (
      principal: Principal,
      workspaceId: string | undefined,
      page: PageRequest
    ) => Effect.Effect<Page<Provider>, InvalidRequest | AccessError>
    /** `ref` is the provider's id or slug; a slug is looked up in `workspaceId`, else the caller's workspace. */
    readonly get: (
      principal: Principal,
      ref: string,
      workspaceId?: string
    ) => Effect.Effect<Provider, InvalidRequest | AccessError>
    readonly update: (
      principal: Principal,
      ref: string,
      input: UpdateProvider,
      workspaceId?: string
    ) => Effect.Effect<Provider, WriteError>
    readonly delete: (principal: Principal, ref: string, workspaceId?: string) => Effect.Effect<Provider, WriteError>
    /**
     * The workspace's provider `ref` (its slug, else its id: a virtual key's old id) resolved for a fine-tuning
     * call: its integration's provider type, key and custom host; none when the workspace has no such provider.
     * Refused, naming `param`, when it expired, or its integration cannot serve the call.
     */
    readonly resolveProvider: (
      workspaceId: string,
      ref: string,
      param: string
    ) => Effect.Effect<Option.Option<ResolvedVirtualKey>, InvalidRequest | StoreError>
  }
>()("@gateway-control/Providers") {
  static readonly layer = Layer.effect(
    Providers,
    Effect.gen(function*() {
      const raw = yield* ProviderStore
      const granted = grantedWrites(raw, {
        insert: "providers.create",
        update: "providers.update",
        delete: "providers.delete"
      })
      const workspaces = yield* WorkspaceStore
      const integrationStore = yield* IntegrationStore
      const integrations = yield* Integrations
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase
      const lookup = findByIdOrSlug(raw, "provider", (provider) => provider)

      /** A workspace of the organisation, by id or slug. */
      const workspaceOf = Effect.fnUntraced(function*(organisationId: string, ref: string) {
        const byId = Option.filter(yield* workspaces.get(ref), (w) => w.organisation_id === organisationId)
        return Option.isSome(byId) ? byId : yield* workspaces.findBySlug(organisationId, ref)
      })

      /** The integration `ref` (id or slug) names that the workspace may use; refused naming `integration_id`. */
      const usableIntegration = Effect.fnUntraced(
        function*(workspace: { readonly organisation_id: string; readonly id: string }, ref: string) {
          const byId = Option.filter(
            yield* integrationStore.get(ref),
            (s) => s.record.organisation_id === workspace.organisation_id
          )
          const found = Option.isSome(byId) ? byId : yield* integrationStore.findBySlug(workspace.organisation_id, ref)
          const usable = Option.filter(
            found,
            (s) =>
              openToWorkspace(integrationAccessTarget(s.record), {
                organisation_id: workspace.organisation_id,
                workspace_id: workspace.id
              })
          )
          if (Option.isNone(usable)) {
            return yield* InvalidRequest.of(
              `No integration '${ref}' is shared with workspace '${workspace.id}'.`,
              "integration_id"
            )
          }
          if (usable.value.record.status !== "active") {
            return yield* InvalidRequest.of(`Integration '${ref}' is archived.`, "integration_id")
          }
          return usable.value.record
        }
      )

      const create = Effect.fn("Providers.create")(function*(principal: Principal, input: CreateProvider) {
        const workspaceRef = input.workspace_id ?? principal.workspaceId
        if (workspaceRef === null) {
          return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
        }
        const workspace = yield* requireRow(
          yield* workspaceOf(principal.organisationId, workspaceRef),
          "workspace",
          workspaceRef
        )
        const grant = yield* ensureAllowed(
          principal,
          "providers.create",
          Target.workspace(workspace.organisation_id, workspace.id),
          { type: "workspace", id: workspaceRef }
        )
        yield* checkName(input.name)
        const slug = input.slug ?? slugify(input.name)
        yield* checkSlug(slug)
        const integration = yield* usableIntegration(workspace, input.integration_id)
        if (input.models != null) yield* checkModels(input.models, integration)
        const now = yield* nowIso
        const provider = new Provider({
          id: crypto.uuid(),
          organisation_id: workspace.organisation_id,
          workspace_id: workspace.id,
          integration_id: integration.id,
          name: input.name.trim(),
          slug,
          note: input.note ?? null,
          status: "active",
          usage_limits: input.usage_limits == null ? null : yield* checkUsageLimits(input.usage_limits),
          rate_limits: input.rate_limits ?? null,
          expires_at: input.expires_at == null ? null : yield* isoInstant(input.expires_at, "expires_at"),
          models: input.models ?? null,
          created_at: now,
          last_updated_at: now
        })
        yield* granted.insert(grant, provider)
        return provider
      })

      const owned = Effect.fnUntraced(function*<A extends "providers.read" | "providers.update" | "providers.delete">(
        principal: Principal,
        ref: string,
        workspaceId: string | undefined,
        action: A
      ) {
        const provider = yield* lookup(principal, ref, workspaceId)
        const grant = yield* ensureAllowed(
          principal,
          action,
          Target.workspace(provider.organisation_id, provider.workspace_id),
          { type: "provider", id: ref }
        )
        return { grant, provider: asOf(provider, yield* Clock.currentTimeMillis) }
      })

      const list = Effect.fn("Providers.list")(
        function*(principal: Principal, workspaceId: string | undefined, page: PageRequest) {
          const scope = yield* ensureListScope(workspaces, principal, workspaceId, "providers.list")
          const listed = yield* raw.list(principal.organisationId, scope, page)
          const now = yield* Clock.currentTimeMillis
          return { ...listed, items: listed.items.map((provider) => asOf(provider, now)) }
        }
      )

      const get = Effect.fn("Providers.get")(function*(principal: Principal, ref: string, workspaceId?: string) {
        return (yield* owned(principal, ref, workspaceId, "providers.read")).provider
      })

      const update = Effect.fn("Providers.update")(
        function*(principal: Principal, ref: string, input: UpdateProvider, workspaceId?: string) {
          const { grant, provider } = yield* owned(principal, ref, workspaceId, "providers.update")
          if (input.reset_usage === true) {
            return yield* InvalidRequest.of(
              "reset_usage: no usage is counted here, so there is none to reset.",
              "reset_usage"
            )
          }
          if (input.name !== undefined) yield* checkName(input.name)
          if (input.models != null) {
            const integration = yield* usableIntegration(
              { organisation_id: provider.organisation_id, id: provider.workspace_id },
              provider.integration_id
            )
            yield* checkModels(input.models, integration)
          }
          const expiresAt = input.expires_at === undefined
            ? provider.expires_at
            : input.expires_at === null
            ? null
            : yield* isoInstant(input.expires_at, "expires_at")
          const updated = new Provider({
            ...provider,
            name: input.name?.trim() ?? provider.name,
            note: input.note === undefined ? provider.note : input.note,
            usage_limits: input.usage_limits === undefined
              ? provider.usage_limits
              : input.usage_limits === null
              ? null
              : yield* checkUsageLimits(input.usage_limits),
            rate_limits: input.rate_limits === undefined ? provider.rate_limits : input.rate_limits,
            expires_at: expiresAt,
            status: "active",
            models: input.models === undefined ? provider.models : input.models,
            last_updated_at: yield* nowIso
          })
          yield* granted.update(grant, updated)
          return asOf(updated, yield* Clock.currentTimeMillis)
        }
      )

      const remove = Effect.fn("Providers.delete")(function*(principal: Principal, ref: string, workspaceId?: string) {
        const { grant, provider } = yield* owned(principal, ref, workspaceId, "providers.delete")
        yield* granted.delete(grant, provider.id)
        return provider
      })

      const resolveProvider = Effect.fn("Providers.resolveProvider")(
        function*(workspaceId: string, ref: string, param: string) {
          const bySlug = yield* raw.findBySlug(workspaceId, ref)
          const found = Option.isSome(bySlug)
            ? bySlug
            : Option.filter(yield* raw.get(ref), (provider) => provider.workspace_id === workspaceId)
          if (Option.isNone(found)) return Option.none<ResolvedVirtualKey>()
          const provider = asOf(found.value, yield* Clock.currentTimeMillis)
          const slug = provider.slug
          if (provider.status === "expired") {
            return yield* InvalidRequest.of(`Provider '@${slug}' expired at ${provider.expires_at}.`, param)
          }
          const credential = yield* integrations.credentialFor(provider.integration_id, provider, param)
          const type = credential.integration.ai_provider_id
          if (!OPENAI_COMPATIBLE.has(type)) {
            return yield* InvalidRequest.of(
              `Provider '@${slug}' is on a ${type} integration; the gateway calls models and lists fine-tuning jobs through OpenAI-compatible ` +
                "providers (openai, together-ai, fireworks-ai).",
              param
            )
          }
          return Option.some(
            {
              kind: isVirtualKeyProvider(provider) ? "virtual key" : "provider",
              slug,
              provider: type,
              apiKey: credential.apiKey,
              customHost: credential.customHost
            } satisfies ResolvedVirtualKey
          )
        }
      )

      return Providers.of({
        create: (principal, input) =>
          useCases.run(resourceChange("providers.create", principal, input), create(principal, input)),
        list,
        get,
        update: (principal, ref, input, workspaceId) =>
          useCases.run(
            resourceChange("providers.update", principal, input, ref),
            update(principal, ref, input, workspaceId)
          ),
        delete: (principal, ref, workspaceId) =>
          useCases.run(resourceChange("providers.delete", principal, null, ref), remove(principal, ref, workspaceId)),
        resolveProvider
      })
    })
  )
}
