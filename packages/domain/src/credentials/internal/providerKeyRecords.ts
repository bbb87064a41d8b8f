/**
 * What the services of virtual keys and configs share: both are workspace records holding an encrypted
 * provider key, created, listed, read and deleted under the same access and input rules.
 */
import type { Option } from "effect"
import { Effect, Redacted } from "effect"
import { slugify } from "../../access/AccessModel.ts"
import { WorkspaceStore } from "../../access/AccessStores.ts"
import { type Action, ensureAllowed, ensureListScope, Target } from "../../access/Policy.ts"
import type { Principal } from "../../access/Principal.ts"
import { parseCustomHost } from "../../fine-tuning/CustomHosts.ts"
import { SecretCipher } from "../../fine-tuning/Providers.ts"
import { InvalidRequest, requireRow } from "../../shared/Errors.ts"
import { nowIso } from "../../shared/internal/time.ts"
import type { Page, PageRequest } from "../../shared/Paging.ts"
import { PlatformCrypto } from "../../shared/PlatformCrypto.ts"
import { checkName, checkSlug } from "../../shared/Rules.ts"
import type { StoredSecret } from "../ProviderKeyStores.ts"

/** A record in a workspace, as both kinds are. */
interface WorkspaceRecord {
  readonly organisation_id: string
  readonly workspace_id: string
}

/** What listing, reading and deleting need of a record's store. */
interface RecordStore<A> {
  readonly get: (id: string) => Effect.Effect<Option.Option<StoredSecret<A>>>
  readonly list: (organisationId: string, workspaceId: string | null, page: PageRequest) => Effect.Effect<Page<A>>
  readonly delete: (id: string) => Effect.Effect<boolean>
}

export const makeProviderKeyRecords = Effect.gen(function*() {
  const workspaces = yield* WorkspaceStore
  const cipher = yield* SecretCipher
  const crypto = yield* PlatformCrypto

  const targetWorkspace = Effect.fnUntraced(
    function*(principal: Principal, workspaceId: string | undefined, action: Action) {
      const id = workspaceId ?? principal.workspaceId
      if (id === null) {
        return yield* InvalidRequest.of("workspace_id is required with an admin key.", "workspace_id")
      }
      const workspace = yield* requireRow(yield* workspaces.get(id), "workspace", id)
      yield* ensureAllowed(principal, action, Target.workspace(workspace.organisation_id, workspace.id), {
        type: "workspace",
        id
      })
      return workspace
    }
  )

  /** The custom host's shape; its addresses are checked at each call, when they are resolved and pinned. */
  const checkHost = (host: string, param: string) => {
    const parsed = parseCustomHost(host, param)
    return parsed instanceof InvalidRequest ? Effect.fail(parsed) : Effect.void
  }

  /**
   * The fields every new record starts with: a new id, the workspace it is created in (the caller's unless
   * named, and where the caller may create), its checked name and slug (from the name unless given), now.
   */
  const newRecordFields = Effect.fnUntraced(function*(
    principal: Principal,
    input: { readonly workspace_id?: string | undefined; readonly name: string; readonly slug?: string | undefined },
    action: Action
  ) {
    const workspace = yield* targetWorkspace(principal, input.workspace_id, action)
    yield* checkName(input.name)
    const slug = input.slug ?? slugify(input.name)
    yield* checkSlug(slug)
    const now = yield* nowIso
    return {
      id: crypto.uuid(),
      organisation_id: workspace.organisation_id,
      workspace_id: workspace.id,
      name: input.name.trim(),
      slug,
      created_at: now,
      last_updated_at: now
    }
  })

  const owned = Effect.fnUntraced(
    function*<A extends WorkspaceRecord>(
      principal: Principal,
      found: Option.Option<StoredSecret<A>>,
      id: string,
      resource: string,
      action: Action
    ) {
      const { record } = yield* requireRow(found, resource, id)
      yield* ensureAllowed(principal, action, Target.workspace(record.organisation_id, record.workspace_id), {
        type: resource,
        id
      })
      return record
    }
  )

  /**
   * Listing, reading and deleting one kind of record (`resource`, as refusals name it), each under its own
   * action; `span` names the traces (`VirtualKeys` gives `VirtualKeys.list`, …).
   */
  const management = <A extends WorkspaceRecord>(
    store: RecordStore<A>,
    resource: string,
    span: string,
    actions: { readonly list: Action; readonly read: Action; readonly delete: Action }
  ) => ({
    list: Effect.fn(`${span}.list`)(
      function*(principal: Principal, workspaceId: string | undefined, page: PageRequest) {
        return yield* store.list(
          principal.organisationId,
          yield* ensureListScope(principal, workspaceId, actions.list),
          page
        )
      }
    ),
    get: Effect.fn(`${span}.get`)(function*(principal: Principal, id: string) {
      return yield* owned(principal, yield* store.get(id), id, resource, actions.read)
    }),
    delete: Effect.fn(`${span}.delete`)(function*(principal: Principal, id: string) {
      const record = yield* owned(principal, yield* store.get(id), id, resource, actions.delete)
      yield* store.delete(id)
      return record
    })
  })

  const encrypt = (plaintext: string) => cipher.encrypt(plaintext)

  const decrypt = (encrypted: string | null, what: string) => {
    if (encrypted === null) return Effect.succeed(undefined)
    const plaintext = cipher.decrypt(encrypted)
    return plaintext === undefined
      ? Effect.die(new Error(`The provider key of ${what} cannot be decrypted: was GATEWAY_MASTER_KEY changed?`))
      : Effect.succeed(Redacted.make(plaintext))
  }

  return { newRecordFields, checkHost, management, encrypt, decrypt }
})
