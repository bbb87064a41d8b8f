/**
 * API keys in memory. A key is found by its secret's digest, or by the digest of the secret its last rotation
 * replaced while that transition lasts; rotation changes digests, so the digest index is kept here rather
 * than as a `Table`'s fixed unique keys.
 */
import { ApiKey, ApiKeyStore, type KeyListFilters, type StoredApiKey } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { conflictOn, inScope, Table } from "./Table.ts"

type Row = StoredApiKey & { readonly id: string; readonly created_at: string }

const matches = (key: ApiKey, filters: KeyListFilters): boolean =>
  (filters.status === undefined || key.status === filters.status) &&
  (filters.type === undefined || key.type === filters.type) &&
  (filters.name === undefined || key.name.toLowerCase().includes(filters.name.toLowerCase())) &&
  (filters.lastUsedBefore === undefined || key.last_used_at === null ||
    Date.parse(key.last_used_at) < Date.parse(filters.lastUsedBefore))

export const makeMemoryApiKeyStore = (state: MemoryState) => {
  const keys = new Table<Row>(state, (k) => [`digest/${k.digest}`])
  /** Replaced secrets' digests during their transition, to the key's id. */
  const previous = new Map<string, string>()

  /** Replaces a row, moving its digests in the indexes; undone with the unit of work. */
  const replace = (id: string, update: (row: Row) => Row | undefined) =>
    state.write(() => {
      const before = keys.rows.get(id)
      const after = before === undefined ? undefined : update(before)
      if (before === undefined || after === undefined) return [false, () => {}] as const
      const swap = (from: Row, to: Row) => {
        keys.rows.set(id, to)
        keys.unique.delete(`digest/${from.digest}`)
        keys.unique.set(`digest/${to.digest}`, id)
        if (from.previousDigest !== null) previous.delete(from.previousDigest)
        if (to.previousDigest !== null) previous.set(to.previousDigest, id)
      }
      swap(before, after)
      return [true, () => swap(after, before)] as const
    })

  const rowByDigest = (digest: string) => {
    const current = keys.byUnique(`digest/${digest}`)
    if (Option.isSome(current)) return current
    const id = previous.get(digest)
    return id === undefined ? Option.none() : keys.get(id)
  }

  const changeKey = (id: string, change: (key: ApiKey) => ApiKey) =>
    replace(id, (row) => ({ ...row, key: change(row.key) }))

  /** Active keys of the workspace: what it holds, for the workspace store. */
  const activeIn = (workspaceId: string) =>
    [...keys.rows.values()].filter((row) => row.key.workspace_id === workspaceId && row.key.status === "active").length

  const store = ApiKeyStore.of({
    insert: ({ digest, key }) =>
      Effect.flatMap(
        keys.insert(key.id, { key, digest, previousDigest: null, id: key.id, created_at: key.created_at }),
        (taken) => conflictOn(taken, "An API key with this id or digest already exists.", null)
      ),
    findByDigest: (digest) =>
      Effect.sync(() =>
        Option.map(rowByDigest(digest), (row) => ({
          key: row.key,
          digest: row.digest,
          previousDigest: row.previousDigest
        }))
      ),
    get: (id) => Effect.sync(() => Option.map(keys.get(id), (row) => row.key)),
    list: (organisationId, workspaceId, page, filters = {}) =>
      Effect.sync(() => {
        const result = keys.page(
          (row) => inScope(row.key, organisationId, workspaceId) && matches(row.key, filters),
          page
        )
        return { items: result.items.map((row) => row.key), total: result.total }
      }),
    revoke: (id, at) => changeKey(id, (key) => new ApiKey({ ...key, status: "revoked", last_updated_at: at })),
    rotate: (rotation) =>
      replace(rotation.id, (row) => {
        const { at, transitionEndsAt } = rotation
        const inTransition = row.key.transition_ends_at !== null && row.key.transition_ends_at > at
        if (row.key.status !== "active" || inTransition) return undefined
        return {
          ...row,
          digest: rotation.digest,
          previousDigest: transitionEndsAt > at ? row.digest : null,
          key: new ApiKey({
            ...row.key,
            masked_key: rotation.maskedKey,
            rotated_at: at,
            transition_ends_at: transitionEndsAt,
            last_updated_at: at
          })
        }
      }),
    update: (key) =>
      changeKey(key.id, (stored) =>
        new ApiKey({
          ...stored,
          name: key.name,
          description: key.description,
          scopes: key.scopes,
          expires_at: key.expires_at,
          rate_limits: key.rate_limits,
          usage_limits: key.usage_limits,
          rotation_policy: key.rotation_policy,
          alert_emails: key.alert_emails,
          last_updated_at: key.last_updated_at
        })),
    recordUse: (ids, at) =>
      Effect.forEach(
        ids,
        (id) =>
          changeKey(id, (key) =>
            key.last_used_at !== null && key.last_used_at >= at ? key : new ApiKey({ ...key, last_used_at: at })),
        { discard: true }
      ),
    endTransitions: (now) =>
      Effect.gen(function*() {
        const ending = [...keys.rows.values()].filter((row) =>
          row.previousDigest !== null && row.key.transition_ends_at !== null && row.key.transition_ends_at <= now
        )
        const ended: Array<ApiKey> = []
        for (const row of ending) {
          if (yield* replace(row.id, (current) => ({ ...current, previousDigest: null }))) ended.push(row.key)
        }
        return ended
      })
  })
  return Object.assign(store, { activeIn })
}
