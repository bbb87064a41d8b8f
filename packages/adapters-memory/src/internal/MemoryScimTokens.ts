/** SCIM tokens in memory: by id, and by the digest of their secret. */
import { ScimToken, ScimTokenStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { Table } from "./Table.ts"

interface Row {
  readonly token: ScimToken
  readonly digest: string
}

export const makeScimTokenStore = (state: MemoryState) => {
  const tokens = new Table<Row>(state, (row) => [`digest/${row.digest}`])
  return ScimTokenStore.of({
    insert: (stored) => Effect.asVoid(tokens.insert(stored.token.id, stored)),
    findByDigest: (digest) => Effect.sync(() => Option.map(tokens.byUnique(`digest/${digest}`), (row) => row.token)),
    get: (id) => Effect.sync(() => Option.map(tokens.get(id), (row) => row.token)),
    list: (organisationId, page) =>
      Effect.sync(() => {
        const all = [...tokens.rows.values()].map((row) => row.token)
          .filter((token) => token.organisation_id === organisationId)
          .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
        return { items: all.slice(page.offset, page.offset + page.limit), total: all.length }
      }),
    revoke: (id, at) =>
      tokens.replaceWhen(id, (row) => row.token.status === "active", (row) => ({
        ...row,
        token: new ScimToken({ ...row.token, status: "revoked", revoked_at: at, last_updated_at: at })
      }))
  })
}
