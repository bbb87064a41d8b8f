/**
 * Administering integrations (Portkey's `/integrations` family): create, list, read, change, delete; the
 * workspaces an organisation-level integration is shared with, each with its limits; the models it allows.
 * Each change is an audited use case, authorised by the policy: organisation-level integrations are admin keys'
 * (`organisation_integrations.*`), a workspace's own also its keys' (`workspace_integrations.*`).
 *
 * The credential and the secret fields of `configurations` are write-only and bound to the destination stored
 * with them (StoredSecretBinding.ts): the custom host, else the provider's endpoint (Azure's resource, Bedrock's
 * and Vertex's region). A change of destination must give them again.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { slugify } from "../access/AccessModel.ts"
import { WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { canSee, ensureAllowed, type OpenTo, openToWorkspace, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { AuditedUseCase, resourceChange } from "../audit/AuditedUseCase.ts"
import { maskKey } from "../credentials/ApiKey.ts"
import { checkUsageLimits } from "../credentials/UsageLimits.ts"
import { ProviderRegistry, SecretCipher } from "../fine-tuning/Providers.ts"
import { ProviderStore } from "../providers/ProviderStore.ts"
import { SecretReferences } from "../secret-references/SecretReferences.ts"
import { SecretReferenceStore } from "../secret-references/SecretReferenceStore.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../shared/Rules.ts"
import { type SecretBinding, secretBoundWrites } from "../shared/StoredSecretBinding.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { refuseUnsupported } from "../shared/Unsupported.ts"
import {
  type AiProviderId,
  type CreateIntegration,
  Integration,
  type IntegrationFilter,
  type IntegrationModel,
  type IntegrationSecretMapping,
  type IntegrationWorkspaceAccess,
  type StoredIntegration,
  UNSUPPORTED_MODEL_FIELDS,
  type UpdateIntegration,
  type UpdateIntegrationModels,
  type UpdateIntegrationWorkspaces
} from "./Integration.ts"
import {
  checkConfigurations,
  checkKey,
  checkSecretMappings,
  destinationFieldOf,
  destinationOfIntegration,
  givenSecretFields,
  maskIntegrationConfigurations,
  openConfigurations
} from "./IntegrationRules.ts"
import { findIntegration, IntegrationStore } from "./IntegrationStore.ts"

type AccessError = Forbidden | NotFound | StoreError
type WriteError = InvalidRequest | AccessError | Conflict

/** The integration as an access target: a workspace's, or the organisation's open to the workspaces it shares it with. */
export const integrationAccessTarget = (integration: Integration): Target =>
  integration.workspace_id !== null
    ? Target.workspace(integration.organisation_id, integration.workspace_id)
    : Target.shared(integration.organisation_id, openTo(integration))

/** The workspaces an organisation-level integration is open to. */
const openTo = (integration: Integration): OpenTo =>
  integration.global_workspace_access_settings?.enabled === true
    ? "every-workspace"
    : integration.workspaces.filter((w) => w.enabled).map((w) => w.id)

/** An integration as read, with how many workspaces may use it. */
export interface IntegrationDetails {
  readonly integration: Integration
  readonly workspaceCount: number
}

/** What a call through an integration needs: its provider type, its key, and where the key may go. */
export interface IntegrationCredential {
  readonly integration: Integration
  readonly apiKey: Redacted.Redacted<string>
  /** The integration's custom host; null for the provider's own endpoint. */
  readonly customHost: string | null
}

/** The workspaces given access to an integration, as the caller may see them. */
export interface IntegrationAccess {
  readonly integration: Integration
  readonly workspaces: ReadonlyArray<IntegrationWorkspaceAccess>
}

export class Integrations extends Context.Service<
  Integrations,
  {
    readonly create: (principal: Principal, input: CreateIntegration) => Effect.Effect<Integration, WriteError>
    readonly list: (
      principal: Principal,
      request: { readonly workspaceId?: string | undefined; readonly type?: IntegrationFilter["level"] | undefined },
      page: PageRequest
    ) => Effect.Effect<Page<Integration>, InvalidRequest | AccessError>
    /** `ref` is the integration's id or slug. */
    readonly get: (principal: Principal, ref: string) => Effect.Effect<IntegrationDetails, AccessError>
    readonly update: (
      principal: Principal,
      ref: string,
      input: UpdateIntegration
    ) => Effect.Effect<Integration, WriteError>
    readonly delete: (principal: Principal, ref: string) => Effect.Effect<Integration, WriteError>
    readonly getWorkspaces: (principal: Principal, ref: string) => Effect.Effect<IntegrationAccess, AccessError>
    readonly updateWorkspaces: (
      principal: Principal,
      ref: string,
      input: UpdateIntegrationWorkspaces
    ) => Effect.Effect<Integration, WriteError>
    readonly getModels: (principal: Principal, ref: string) => Effect.Effect<Integration, AccessError>
    readonly updateModels: (
      principal: Principal,
      ref: string,
      input: UpdateIntegrationModels
    ) => Effect.Effect<Integration, WriteError>
    readonly deleteModels: (
      principal: Principal,
      ref: string,
      slugs: ReadonlyArray<string>
    ) => Effect.Effect<Integration, WriteError>
    /**
     * The credential of integration `id` for a call of a record in `workspace` (a provider): refused, naming
     * `param`, when the integration is archived, no longer open to the workspace, or has no key; a key mapped to
     * a secret reference is fetched (and its use audited) for the integration's destination.
     */
    readonly credentialFor: (
      id: string,
      workspace: { readonly organisation_id: string; readonly workspace_id: string },
      param: string
    ) => Effect.Effect<IntegrationCredential, InvalidRequest | StoreError>
    /**
     * The credential of integration `id` for a call of the integration itself (a test of its credential): refused
     * when it is archived or has no key; a key mapped to a secret reference is fetched (its use audited) for the
     * integration's destination, as the integration's own workspace (none at organisation level) may.
     */
    readonly ownCredential: (id: string) => Effect.Effect<IntegrationCredential, InvalidRequest | StoreError>
  }
>()("@gateway-control/Integrations") {
  static readonly layer = Layer.effect(
    Integrations,
    Effect.gen(function*() {
      const raw = yield* IntegrationStore
      const granted = grantedWrites(raw, {
        insert: ["integrations.create.organisation", "integrations.create.workspace"],
        update: ["integrations.update.organisation", "integrations.update.workspace"],
        delete: ["integrations.delete.organisation", "integrations.delete.workspace"]
      })
      const workspaces = yield* WorkspaceStore
      const references = yield* SecretReferenceStore
      const cipher = yield* SecretCipher
      const crypto = yield* PlatformCrypto
      const registry = yield* ProviderRegistry
      const useCases = yield* AuditedUseCase
      const secretReferences = yield* SecretReferences
      const providerStore = yield* ProviderStore

      const baseUrlOf = (type: AiProviderId) => registry.baseUrls.get(type)

      /** The binding of an integration's secrets to its destination (StoredSecretBinding.ts). */
      const bindingOf = (type: AiProviderId, current: Integration, updated: Integration) => {
        const hostChanged = current.configurations.custom_host !== updated.configurations.custom_host
        return {
          destination: ({ record }) =>
            destinationOfIntegration(record.ai_provider_id, record.configurations, baseUrlOf),
          destinationField: hostChanged ? "configurations.custom_host" : destinationFieldOf(type),
          secrets: ({ encryptedSecrets }) => new Map(Object.entries(encryptedSecrets))
        } satisfies SecretBinding<StoredIntegration>
      }

      /** A workspace of the organisation, by id or slug. */
      const workspaceOf = Effect.fnUntraced(function*(organisationId: string, ref: string) {
        const byId = Option.filter(yield* workspaces.get(ref), (w) => w.organisation_id === organisationId)
        return Option.isSome(byId) ? byId : yield* workspaces.findBySlug(organisationId, ref)
      })

      /** The integration `ref` (id or slug) names in the organisation, as stored. */
      const find = (organisationId: string, ref: string) => findIntegration(raw, organisationId, ref)

      const encryptAll = (secrets: Readonly<Record<string, string>>) =>
        Object.fromEntries(Object.entries(secrets).map(([field, value]) => [field, cipher.encrypt(value)]))

      /** Every mapping names a secret reference of the organisation that the integration's workspace may use. */
      const checkReferences = Effect.fnUntraced(
        function*(
          organisationId: string,
          workspaceId: string | null,
          mappings: ReadonlyArray<IntegrationSecretMapping>
        ) {
          for (const [i, mapping] of mappings.entries()) {
            const param = `secret_mappings[${i}].secret_reference_id`
            const byId = Option.filter(
              yield* references.get(mapping.secret_reference_id),
              (s) => s.record.organisation_id === organisationId
            )
            const found = Option.isSome(byId)
              ? byId
              : yield* references.findBySlug(organisationId, mapping.secret_reference_id)
            if (Option.isNone(found)) {
              return yield* InvalidRequest.of(
                `No secret reference '${mapping.secret_reference_id}' in this organisation.`,
                param
              )
            }
            const reference = found.value.record
            const open = reference.allow_all_workspaces ||
              (workspaceId !== null && reference.allowed_workspaces.includes(workspaceId))
            if (!open) {
              return yield* InvalidRequest.of(
                `Secret reference '${reference.slug}' is not open to ${
                  workspaceId === null
                    ? "every workspace, as an organisation-level integration needs"
                    : "this workspace"
                }.`,
                param
              )
            }
          }
        }
      )

      const NO_DEFAULT_PROVIDER = "a workspace makes its own providers (POST its providers), so no default " +
        "provider is made; send false or leave it out."
      const NO_PRICING = "the control plane counts no cost (model calls do not pass through it)."

      /** `create_default_provider`: only false is taken. */
      const noDefaultProvider = (value: boolean | undefined, param: string) =>
        value === true
          ? Effect.fail(InvalidRequest.of(`${param} is not supported by this gateway: ${NO_DEFAULT_PROVIDER}`, param))
          : Effect.void

      const checkKeyText = (key: string | undefined) =>
        key !== undefined && key.trim().length === 0
          ? Effect.fail(InvalidRequest.of("key must be the provider's API key.", "key"))
          : Effect.void

      const create = Effect.fn("Integrations.create")(function*(principal: Principal, input: CreateIntegration) {
        const organisationId = principal.organisationId
        let workspaceId: string | null = null
        if (input.workspace_id !== undefined) {
          const workspace = yield* requireRow(
            yield* workspaceOf(organisationId, input.workspace_id),
            "workspace",
            input.workspace_id
          )
          workspaceId = workspace.id
        }
        const grant = workspaceId === null
          ? yield* ensureAllowed(principal, "integrations.create.organisation", Target.organisation(organisationId), {
            type: "organisation",
            id: organisationId
          })
          : yield* ensureAllowed(
            principal,
            "integrations.create.workspace",
            Target.workspace(organisationId, workspaceId),
            {
              type: "workspace",
              id: workspaceId
            }
          )
        yield* refuseUnsupported(input, ["default_provider_slug"], NO_DEFAULT_PROVIDER)
        yield* noDefaultProvider(input.create_default_provider, "create_default_provider")
        yield* refuseUnsupported(input, ["pricing_adjustments"], NO_PRICING)
        yield* checkName(input.name)
        const slug = input.slug ?? slugify(input.name)
        yield* checkSlug(slug)
        yield* checkKeyText(input.key)
        const type = input.ai_provider_id
        const configurations = openConfigurations(input.configurations ?? {})
        const mappings = input.secret_mappings ?? []
        const givenSecrets = givenSecretFields(input.key, configurations)
        const mappingProblem = checkSecretMappings(type, mappings, givenSecrets)
        if (mappingProblem !== undefined) return yield* mappingProblem
        yield* checkReferences(organisationId, workspaceId, mappings)
        const available = new Set([...givenSecrets, ...mappings.map((m) => m.target_field)])
        const checked = checkConfigurations(type, configurations, available)
        if (checked instanceof InvalidRequest) return yield* checked
        const keyProblem = checkKey(type, checked.open, available)
        if (keyProblem !== undefined) return yield* keyProblem
        const secrets = { ...(input.key === undefined ? {} : { key: input.key }), ...checked.secret }
        const now = yield* nowIso
        const record = new Integration({
          id: crypto.uuid(),
          organisation_id: organisationId,
          workspace_id: workspaceId,
          name: input.name.trim(),
          slug,
          ai_provider_id: type,
          description: input.description ?? null,
          status: "active",
          masked_key: input.key === undefined ? null : maskKey(input.key),
          configurations: maskIntegrationConfigurations(checked.open, Object.keys(checked.secret)),
          secret_mappings: mappings,
          global_workspace_access_settings: null,
          workspaces: [],
          allow_all_models: true,
          models: [],
          created_at: now,
          last_updated_at: now
        })
        yield* granted.insert(grant, { record, encryptedSecrets: encryptAll(secrets) })
        return record
      })

      /** The integration, found and visible, with the policy's grant of the level's action `verb`. */
      const writable = Effect.fnUntraced(
        function*<V extends "update" | "delete">(principal: Principal, ref: string, verb: V) {
          const stored = yield* find(principal.organisationId, ref)
          const level = stored.record.workspace_id === null ? "organisation" : "workspace"
          const grant = yield* ensureAllowed(
            principal,
            `integrations.${verb}.${level}` as `integrations.${V}.organisation` | `integrations.${V}.workspace`,
            integrationAccessTarget(stored.record),
            { type: "integration", id: ref }
          )
          return { grant, stored }
        }
      )

      const readable = Effect.fnUntraced(function*(principal: Principal, ref: string) {
        const stored = yield* find(principal.organisationId, ref)
        yield* ensureAllowed(principal, "integrations.read", integrationAccessTarget(stored.record), {
          type: "integration",
          id: ref
        })
        return stored.record
      })

      const workspaceCount = Effect.fnUntraced(function*(integration: Integration) {
        if (integration.workspace_id !== null) return 1
        if (integration.global_workspace_access_settings?.enabled === true) {
          return (yield* workspaces.list(integration.organisation_id, { limit: 1, offset: 0 })).total
        }
        return integration.workspaces.filter((w) => w.enabled).length
      })

      const get = Effect.fn("Integrations.get")(function*(principal: Principal, ref: string) {
        const integration = yield* readable(principal, ref)
        return { integration, workspaceCount: yield* workspaceCount(integration) }
      })

      const list = Effect.fn("Integrations.list")(function*(
        principal: Principal,
        request: { readonly workspaceId?: string | undefined; readonly type?: IntegrationFilter["level"] | undefined },
        page: PageRequest
      ) {
        const organisationId = principal.organisationId
        // A workspace's list shows what that workspace may use; an admin key's, naming none, the whole catalogue.
        const usable = request.workspaceId ?? principal.workspaceId
        let usableBy: string | null = null
        if (usable !== null) {
          const workspace = yield* requireRow(yield* workspaceOf(organisationId, usable), "workspace", usable)
          yield* ensureAllowed(principal, "integrations.list", Target.workspace(organisationId, workspace.id), {
            type: "workspace",
            id: usable
          })
          usableBy = workspace.id
        } else {
          yield* ensureAllowed(principal, "integrations.list", Target.shared(organisationId, []), {
            type: "organisation",
            id: organisationId
          })
        }
        return yield* raw.list(organisationId, { usableBy, level: request.type ?? "all" }, page)
      })

      const update = Effect.fn("Integrations.update")(
        function*(principal: Principal, ref: string, input: UpdateIntegration) {
          const { grant, stored } = yield* writable(principal, ref, "update")
          const current = stored.record
          const type = current.ai_provider_id
          yield* refuseUnsupported(input, ["pricing_adjustments"], NO_PRICING)
          if (input.name !== undefined) yield* checkName(input.name)
          yield* checkKeyText(input.key)
          const configurations = input.configurations === undefined
            ? undefined
            : openConfigurations(input.configurations)
          const mappings = input.secret_mappings ?? current.secret_mappings
          const givenSecrets = givenSecretFields(input.key, configurations)
          if (input.secret_mappings !== undefined) {
            const mappingProblem = checkSecretMappings(type, mappings, givenSecrets)
            if (mappingProblem !== undefined) return yield* mappingProblem
            yield* checkReferences(current.organisation_id, current.workspace_id, mappings)
          }
          // Stored secrets stay unless given again or now mapped to a secret reference.
          const mapped = new Set(mappings.map((m) => m.target_field))
          const kept = Object.fromEntries(
            Object.entries(stored.encryptedSecrets).filter(([field]) => !mapped.has(field) && !givenSecrets.has(field))
          )
          const open = configurations ?? openConfigurations(current.configurations)
          const available = new Set([...Object.keys(kept), ...givenSecrets, ...mapped])
          const checked = checkConfigurations(type, open, available)
          if (checked instanceof InvalidRequest) return yield* checked
          const keyProblem = checkKey(type, checked.open, available)
          if (keyProblem !== undefined) return yield* keyProblem
          const given = { ...(input.key === undefined ? {} : { key: input.key }), ...checked.secret }
          const encryptedSecrets = { ...kept, ...encryptAll(given) }
          const record = new Integration({
            ...current,
            name: input.name?.trim() ?? current.name,
            description: input.description === undefined ? current.description : input.description,
            status: input.status ?? current.status,
            masked_key: input.key !== undefined
              ? maskKey(input.key)
              : "key" in encryptedSecrets
              ? current.masked_key
              : null,
            configurations: maskIntegrationConfigurations(checked.open, Object.keys(encryptedSecrets)),
            secret_mappings: mappings,
            last_updated_at: yield* nowIso
          })
          const store = secretBoundWrites(granted, bindingOf(type, current, record))
          yield* store.update(grant, {
            current: stored,
            updated: { record, encryptedSecrets },
            supplied: [...givenSecrets]
          })
          return record
        }
      )

      const remove = Effect.fn("Integrations.delete")(function*(principal: Principal, ref: string) {
        const { grant, stored } = yield* writable(principal, ref, "delete")
        const using = yield* providerStore.usingIntegration(stored.record.id, 5)
        if (using.length > 0) {
          return yield* new Conflict({
            message: `Providers use integration '${stored.record.slug}' (${using.join(", ")}${
              using.length === 5 ? ", …" : ""
            }): delete them first.`,
            param: null
          })
        }
        yield* granted.delete(grant, stored.record.id)
        return stored.record
      })

      /** A change of the record alone (workspaces, models): its secrets and destination stay as they are. */
      const replaceRecord = Effect.fnUntraced(function*(
        principal: Principal,
        ref: string,
        change: (integration: Integration) => Effect.Effect<Integration, InvalidRequest | StoreError>
      ) {
        const { grant, stored } = yield* writable(principal, ref, "update")
        const changed = yield* change(stored.record)
        const record = new Integration({ ...changed, last_updated_at: yield* nowIso })
        const store = secretBoundWrites(granted, bindingOf(record.ai_provider_id, stored.record, record))
        yield* store.update(grant, {
          current: stored,
          updated: { record, encryptedSecrets: stored.encryptedSecrets },
          supplied: []
        })
        return record
      })

      const getWorkspaces = Effect.fn("Integrations.getWorkspaces")(function*(principal: Principal, ref: string) {
        const integration = yield* readable(principal, ref)
        const listed: ReadonlyArray<IntegrationWorkspaceAccess> = integration.workspace_id !== null
          ? [{ id: integration.workspace_id, enabled: true, usage_limits: null, rate_limits: null }]
          : integration.workspaces.filter((w) => canSee(principal, Target.workspace(integration.organisation_id, w.id)))
        return { integration, workspaces: listed }
      })

      const updateWorkspaces = Effect.fn("Integrations.updateWorkspaces")(
        function*(principal: Principal, ref: string, input: UpdateIntegrationWorkspaces) {
          return yield* replaceRecord(principal, ref, (current) =>
            Effect.gen(function*() {
              if (current.workspace_id !== null) {
                return yield* InvalidRequest.of(
                  "A workspace-level integration belongs to its workspace alone: it is shared with no other.",
                  "workspaces"
                )
              }
              yield* refuseUnsupported(input, ["default_provider_slug"], NO_DEFAULT_PROVIDER)
              yield* noDefaultProvider(input.create_default_provider, "create_default_provider")
              const given: Array<IntegrationWorkspaceAccess> = []
              for (const [i, entry] of (input.workspaces ?? []).entries()) {
                yield* noDefaultProvider(entry.create_default_provider, `workspaces[${i}].create_default_provider`)
                if (entry.default_provider_slug != null) {
                  return yield* InvalidRequest.of(
                    `workspaces[${i}].default_provider_slug is not supported by this gateway: ${NO_DEFAULT_PROVIDER}`,
                    `workspaces[${i}].default_provider_slug`
                  )
                }
                if (entry.reset_usage != null && entry.reset_usage !== false) {
                  return yield* InvalidRequest.of(
                    `workspaces[${i}].reset_usage: no usage is counted here, so there is none to reset.`,
                    `workspaces[${i}].reset_usage`
                  )
                }
                const workspace = yield* workspaceOf(current.organisation_id, entry.id)
                if (Option.isNone(workspace)) {
                  return yield* InvalidRequest.of(
                    `No workspace '${entry.id}' in this organisation.`,
                    `workspaces[${i}].id`
                  )
                }
                for (const limits of entry.usage_limits ?? []) {
                  yield* checkUsageLimits(limits, `workspaces[${i}].usage_limits[0]`)
                }
                given.push({
                  id: workspace.value.id,
                  enabled: entry.enabled,
                  usage_limits: entry.usage_limits ?? null,
                  rate_limits: entry.rate_limits ?? null
                })
              }
              for (const limits of input.global_workspace_access?.usage_limits ?? []) {
                yield* checkUsageLimits(limits, "global_workspace_access.usage_limits[0]")
              }
              const ids = new Set(given.map((w) => w.id))
              if (ids.size !== given.length) {
                return yield* InvalidRequest.of("A workspace is named twice.", "workspaces")
              }
              const merged = input.override_existing_workspace_access === true
                ? given
                : [...current.workspaces.filter((w) => !ids.has(w.id)), ...given]
              const global = input.global_workspace_access ?? current.global_workspace_access_settings
              if (global?.enabled === true && merged.some((w) => !w.enabled)) {
                return yield* InvalidRequest.of(
                  "Global workspace access opens the integration to every workspace: turn it off to close one.",
                  "global_workspace_access.enabled"
                )
              }
              return new Integration({ ...current, workspaces: merged, global_workspace_access_settings: global })
            }))
        }
      )

      const getModels = Effect.fn("Integrations.getModels")(function*(principal: Principal, ref: string) {
        return yield* readable(principal, ref)
      })

      const updateModels = Effect.fn("Integrations.updateModels")(
        function*(principal: Principal, ref: string, input: UpdateIntegrationModels) {
          return yield* replaceRecord(principal, ref, (current) => {
            const slugs = new Set(input.models.map((m) => m.slug))
            if (slugs.size !== input.models.length) {
              return Effect.fail(InvalidRequest.of("A model is named twice.", "models"))
            }
            for (const [i, model] of input.models.entries()) {
              const sent = UNSUPPORTED_MODEL_FIELDS.find((field) => model[field] != null)
              if (sent !== undefined) {
                return Effect.fail(InvalidRequest.of(
                  `models[${i}].${sent} is not supported by this gateway: ${NO_PRICING} Leave it out.`,
                  `models[${i}].${sent}`
                ))
              }
            }
            const models: ReadonlyArray<IntegrationModel> = [
              ...current.models.filter((m) => !slugs.has(m.slug)),
              ...input.models.map(({ configurations: _c, pricing_config: _p, ...model }) => model)
            ]
            return Effect.succeed(
              new Integration({
                ...current,
                models,
                allow_all_models: input.allow_all_models ?? current.allow_all_models
              })
            )
          })
        }
      )

      const deleteModels = Effect.fn("Integrations.deleteModels")(
        function*(principal: Principal, ref: string, slugs: ReadonlyArray<string>) {
          return yield* replaceRecord(principal, ref, (current) => {
            const custom = new Set(current.models.filter((m) => m.is_custom === true).map((m) => m.slug))
            const unknown = slugs.find((slug) => !custom.has(slug))
            if (slugs.length === 0 || unknown !== undefined) {
              return Effect.fail(InvalidRequest.of(
                unknown === undefined
                  ? "slugs must name at least one custom model."
                  : `'${unknown}' is not a custom model of this integration.`,
                "slugs"
              ))
            }
            const gone = new Set(slugs)
            return Effect.succeed(
              new Integration({ ...current, models: current.models.filter((m) => !gone.has(m.slug)) })
            )
          })
        }
      )

      const credentialFor = Effect.fn("Integrations.credentialFor")(function*(
        id: string,
        workspace: { readonly organisation_id: string; readonly workspace_id: string },
        param: string
      ) {
        const found = Option.filter(yield* raw.get(id), (s) => s.record.organisation_id === workspace.organisation_id)
        if (Option.isNone(found)) return yield* InvalidRequest.of("Its integration no longer exists.", param)
        const { record } = found.value
        if (record.status !== "active") {
          return yield* InvalidRequest.of(`Its integration '${record.slug}' is archived.`, param)
        }
        if (!openToWorkspace(integrationAccessTarget(record), workspace)) {
          return yield* InvalidRequest.of(
            `Its integration '${record.slug}' is no longer shared with this workspace.`,
            param
          )
        }
        return yield* credentialOf(found.value, workspace.workspace_id, param)
      })

      const ownCredential = Effect.fn("Integrations.ownCredential")(function*(id: string) {
        const found = yield* raw.get(id)
        if (Option.isNone(found)) return yield* InvalidRequest.of("The integration no longer exists.", "integration")
        const { record } = found.value
        if (record.status !== "active") {
          return yield* InvalidRequest.of(`The integration '${record.slug}' is archived.`, "integration")
        }
        return yield* credentialOf(found.value, record.workspace_id, "integration")
      })

      /** The key of a stored integration, for a call by `workspaceId` (null: the organisation), and its host. */
      const credentialOf = Effect.fnUntraced(function*(
        { encryptedSecrets, record }: StoredIntegration,
        workspaceId: string | null,
        param: string
      ) {
        const destination = destinationOfIntegration(record.ai_provider_id, record.configurations, baseUrlOf)
        const mapping = record.secret_mappings.find((m) => m.target_field === "key")
        let apiKey: Redacted.Redacted<string>
        if (mapping !== undefined) {
          const value = yield* secretReferences.resolve({
            organisationId: record.organisation_id,
            workspaceId,
            reference: mapping.secret_reference_id,
            secretKey: mapping.secret_key,
            destination: new URL(destination),
            usedBy: { type: "integration", id: record.id },
            param
          })
          const text = Redacted.value(value)
          if (typeof text !== "string") {
            return yield* InvalidRequest.of(
              `The secret reference of integration '${record.slug}' holds fields, not a key: set its secret_key.`,
              param
            )
          }
          apiKey = Redacted.make(text)
        } else {
          const sealed = encryptedSecrets.key
          const plaintext = sealed === undefined ? undefined : cipher.decrypt(sealed)
          if (sealed === undefined) {
            return yield* InvalidRequest.of(`Integration '${record.slug}' has no key for calls.`, param)
          }
          if (plaintext === undefined) {
            return yield* Effect.die(
              new Error(`The key of integration '${record.slug}' cannot be decrypted: was GATEWAY_MASTER_KEY changed?`)
            )
          }
          apiKey = Redacted.make(plaintext)
        }
        const host = record.configurations.custom_host
        return {
          integration: record,
          apiKey,
          customHost: typeof host === "string" ? host : null
        } satisfies IntegrationCredential
      })

      return Integrations.of({
        credentialFor,
        ownCredential,
        create: (principal, input) =>
          useCases.run(resourceChange("integrations.create", principal, input), create(principal, input)),
        list,
        get,
        update: (principal, ref, input) =>
          useCases.run(resourceChange("integrations.update", principal, input, ref), update(principal, ref, input)),
        delete: (principal, ref) =>
          useCases.run(resourceChange("integrations.delete", principal, null, ref), remove(principal, ref)),
        getWorkspaces,
        updateWorkspaces: (principal, ref, input) =>
          useCases.run(
            resourceChange("integrations.updateWorkspaces", principal, input, ref),
            updateWorkspaces(principal, ref, input)
          ),
        getModels,
        updateModels: (principal, ref, input) =>
          useCases.run(
            resourceChange("integrations.updateModels", principal, input, ref),
            updateModels(principal, ref, input)
          ),
        deleteModels: (principal, ref, slugs) =>
          useCases.run(
            resourceChange("integrations.deleteModels", principal, { slugs }, ref),
            deleteModels(principal, ref, slugs)
          )
      })
    })
  )
}
