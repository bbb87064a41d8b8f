/**
 * What the services of virtual keys and configs share: both are workspace records holding an encrypted
 * provider key, created, listed, read and deleted under the same access and input rules.
 */
import type { Option } from "effect"
import { Effect, Redacted } from "effect"
import { WorkspaceStore } from "../../access/AccessStores.ts"
import { type Action, ensureAllowed, ensureListScope, Target } from "../../access/Policy.ts"
import type { Principal } from "../../access/Principal.ts"
import { parseCustomHost } from "../../fine-tuning/CustomHosts.ts"
import { SecretCipher } from "../../fine-tuning/Providers.ts"
import { InvalidRequest, requireRow } from "../../shared/Errors.ts"
import type { StoredSecret } from "../ProviderKeyStores.ts"

export const makeProviderKeyRecords = Effect.gen(function*() {
  const workspaces = yield* WorkspaceStore
  const cipher = yield* SecretCipher

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

  const owned = Effect.fnUntraced(
    function*<A extends { readonly organisation_id: string; readonly workspace_id: string }>(
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

  const listScope = ensureListScope

  const encrypt = (plaintext: string) => cipher.encrypt(plaintext)

  const decrypt = (encrypted: string | null, what: string) => {
    if (encrypted === null) return Effect.succeed(undefined)
    const plaintext = cipher.decrypt(encrypted)
    return plaintext === undefined
      ? Effect.die(new Error(`The provider key of ${what} cannot be decrypted: was GATEWAY_MASTER_KEY changed?`))
      : Effect.succeed(Redacted.make(plaintext))
  }

  return { targetWorkspace, checkHost, owned, listScope, encrypt, decrypt }
})
