/**
 * The API key store as the key services write to it: every write takes the key rules' proof (`KeyGrant`,
 * access/KeyPolicy.ts), which only `authorizeKeyWrite`'s checks give, so no path writes a key without the
 * "may act as" rule and the lifetime cap. And the one lookup of whom a key acts as, which those checks take.
 */
import { Effect, Option } from "effect"
import { UserStore, WorkspaceMemberStore } from "../../access/AccessStores.ts"
import type { KeyCreationAction, KeyFacts, KeyGrant, KeyRotationAction, KeyUser } from "../../access/KeyPolicy.ts"
import type { StoredApiKey } from "../ApiKey.ts"
import { ApiKeyStore, type KeyRotation } from "../ApiKeyStore.ts"

export const makeKeyWrites = Effect.gen(function*() {
  const store = yield* ApiKeyStore
  const users = yield* UserStore
  const members = yield* WorkspaceMemberStore

  /**
   * The user `key` acts as, with their roles as the store holds them now; null for a key without a user. A user
   * who no longer exists keeps the key's organisation and no role.
   */
  const actingUser = Effect.fnUntraced(function*(key: KeyFacts) {
    if (key.user_id === null) return null
    const user = yield* users.get(key.user_id)
    const membership = key.workspace_id === null
      ? Option.none()
      : yield* members.get(key.workspace_id, key.user_id)
    const found: KeyUser = {
      userId: key.user_id,
      organisationId: Option.match(user, { onNone: () => key.organisation_id, onSome: (u) => u.organisation_id }),
      organisationRole: Option.getOrNull(Option.map(user, (u) => u.role)),
      workspaceRole: Option.getOrNull(Option.map(membership, (m) => m.role))
    }
    return found
  })

  return {
    get: store.get,
    list: store.list,
    actingUser,
    insert: (_: KeyGrant<KeyCreationAction>, key: Omit<StoredApiKey, "previousDigest">) => store.insert(key),
    rotate: (_: KeyGrant<KeyRotationAction>, rotation: KeyRotation) => store.rotate(rotation),
    update: (_: KeyGrant<"api_keys.update">, key: Parameters<typeof store.update>[0]) => store.update(key),
    revoke: (_: KeyGrant<"api_keys.delete">, id: string, at: string) => store.revoke(id, at)
  }
})
