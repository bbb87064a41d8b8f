/**
 * What the services of virtual keys and configs share: both are workspace records holding an encrypted
 * provider key, created, listed, read and deleted under the same access and input rules.
 */
import { Effect, Redacted } from "effect"
import { slugify } from "../../access/AccessModel.ts"
import { WorkspaceStore } from "../../access/AccessStores.ts"
import type { GrantedWrite } from "../../access/GrantedWrites.ts"
import { type Action, ensureAllowed, ensureListScope, Target } from "../../access/Policy.ts"
import type { Principal } from "../../access/Principal.ts"
import { findByIdOrSlug, type SlugLookup } from "../../access/ResourceLookup.ts"
import { parseCustomHost } from "../../fine-tuning/CustomHosts.ts"
import { ProviderRegistry, SecretCipher } from "../../fine-tuning/Providers.ts"
import { InvalidRequest, requireRow } from "../../shared/Errors.ts"
import { nowIso } from "../../shared/internal/time.ts"
import type { Page, PageRequest } from "../../shared/Paging.ts"
import { PlatformCrypto } from "../../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../../shared/Rules.ts"
import type { SecretBinding } from "../../shared/StoredSecretBinding.ts"
import type { StoreError } from "../../shared/StoreError.ts"
import type { StoredSecret } from "../ProviderKeyStores.ts"

/** A record in a workspace, as both kinds are. */
interface WorkspaceRecord {
  readonly id: string
  readonly organisation_id: string
  readonly workspace_id: string
}

/** What listing, reading and deleting need of a record's store, whose deletes take a grant of `D`. */
interface RecordStore<A, D extends Action> extends SlugLookup<StoredSecret<A>> {
  readonly list: (
    organisationId: string,
    workspaceId: string | null,
    page: PageRequest
  ) => Effect.Effect<Page<A>, StoreError>
  readonly delete: GrantedWrite<D, (id: string) => Effect.Effect<boolean, StoreError>>
}

export const makeProviderKeyRecords = Effect.gen(function*() {
  const workspaces = yield* WorkspaceStore
  const cipher = yield* SecretCipher
  const crypto = yield* PlatformCrypto
  const registry = yield* ProviderRegistry

  /** The workspace a new record goes to, and the policy's grant of `action` there. */
  const targetWorkspace = Effect.fnUntraced(
    function*<C extends Action>(principal: Principal, workspaceId: string | undefined, action: C) {
      const id = workspaceId ?? principal.workspaceId
      if (id === null) {
        return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
      }
      const workspace = yield* requireRow(yield* workspaces.get(id), "workspace", id)
      const allowed = yield* ensureAllowed(
        principal,
        action,
        Target.workspace(workspace.organisation_id, workspace.id),
        { type: "workspace", id }
      )
      return { allowed, workspace }
    }
  )

  /** The custom host's shape; its addresses are checked at each call, when they are resolved and pinned. */
  const checkHost = (host: string, param: string) => {
    const parsed = parseCustomHost(host, param)
    return parsed instanceof InvalidRequest ? Effect.fail(parsed) : Effect.void
  }

  /**
   * The fields every new record starts with: a new id, the workspace it is created in (the caller's unless
   * named, and where the caller may create), its checked name and slug (from the name unless given), now;
   * with the grant of `action` that the store's insert takes.
   */
  const newRecordFields = Effect.fnUntraced(function*<C extends Action>(
    principal: Principal,
    input: { readonly workspace_id?: string | undefined; readonly name: string; readonly slug?: string | undefined },
    action: C
  ) {
    const { allowed, workspace } = yield* targetWorkspace(principal, input.workspace_id, action)
    yield* checkName(input.name)
    const slug = input.slug ?? slugify(input.name)
    yield* checkSlug(slug)
    const now = yield* nowIso
    const fields = {
      id: crypto.uuid(),
      organisation_id: workspace.organisation_id,
      workspace_id: workspace.id,
      name: input.name.trim(),
      slug,
      created_at: now,
      last_updated_at: now
    }
    return { allowed, fields }
  })

  /**
   * The record `ref` names (its id, or its slug where the policy looks slugs up), as stored, and the policy's
   * grant of `action` on it.
   */
  const owned = Effect.fnUntraced(
    function*<A extends WorkspaceRecord, G extends Action>(
      principal: Principal,
      store: SlugLookup<StoredSecret<A>>,
      resource: string,
      action: G,
      ref: string,
      workspaceId: string | undefined
    ) {
      const stored = yield* findByIdOrSlug(store, resource, (found) => found.record)(principal, ref, workspaceId)
      const { record } = stored
      const allowed = yield* ensureAllowed(
        principal,
        action,
        Target.workspace(record.organisation_id, record.workspace_id),
        { type: resource, id: ref }
      )
      return { allowed, record, stored }
    }
  )

  /**
   * Listing, reading and deleting one kind of record (`resource`, as refusals name it), each under its own
   * action; `span` names the traces (`VirtualKeys` gives `VirtualKeys.list`, …).
   */
  const management = <A extends WorkspaceRecord, D extends Action>(
    store: RecordStore<A, D>,
    resource: string,
    span: string,
    actions: { readonly list: Action; readonly read: Action; readonly delete: D }
  ) => ({
    list: Effect.fn(`${span}.list`)(
      function*(principal: Principal, workspaceId: string | undefined, page: PageRequest) {
        return yield* store.list(
          principal.organisationId,
          yield* ensureListScope(workspaces, principal, workspaceId, actions.list),
          page
        )
      }
    ),
    get: Effect.fn(`${span}.get`)(function*(principal: Principal, ref: string, workspaceId?: string) {
      const { record } = yield* owned(principal, store, resource, actions.read, ref, workspaceId)
      return record
    }),
    delete: Effect.fn(`${span}.delete`)(function*(principal: Principal, ref: string, workspaceId?: string) {
      const { allowed, record } = yield* owned(principal, store, resource, actions.delete, ref, workspaceId)
      yield* store.delete(allowed, record.id)
      return record
    })
  })

  /**
   * The binding of a kind's encrypted key (StoredSecretBinding.ts), named `secretField` in refusals: it goes
   * to the record's custom host, else to its provider's base URL (a record naming no provider sends its key to
   * the call's provider, which no update of it can change). `destinationField` names the custom host.
   */
  const binding = <A>(
    destinationField: string,
    secretField: string,
    hostOf: (record: A) => { readonly customHost: string | undefined; readonly provider: string | undefined }
  ): SecretBinding<StoredSecret<A>> => ({
    destinationField,
    destination: ({ record }) => {
      const { customHost, provider } = hostOf(record)
      return customHost ?? (provider === undefined ? "" : registry.baseUrls.get(provider) ?? provider)
    },
    secrets: ({ encryptedKey }) => new Map(encryptedKey === null ? [] : [[secretField, encryptedKey]])
  })

  const encrypt = (plaintext: string) => cipher.encrypt(plaintext)

  const decrypt = (encrypted: string | null, what: string) => {
    if (encrypted === null) return Effect.succeed(undefined)
    const plaintext = cipher.decrypt(encrypted)
    return plaintext === undefined
      ? Effect.die(new Error(`The provider key of ${what} cannot be decrypted: was GATEWAY_MASTER_KEY changed?`))
      : Effect.succeed(Redacted.make(plaintext))
  }

  return { newRecordFields, checkHost, owned, management, binding, encrypt, decrypt }
})
