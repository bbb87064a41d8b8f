/** Invitations in memory, with the SHA-256 of each link's token; every change of state is conditional. */
import { Invite, InviteStore } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { Table } from "./Table.ts"

interface Row {
  readonly invite: Invite
  readonly tokenHash: string
}

const before = (a: string, b: string) => Date.parse(a) < Date.parse(b)

export const makeInviteStore = (state: MemoryState) => {
  const invites = new Table<Row>(state, (row) => [`token/${row.tokenHash}`])
  return InviteStore.of({
    insert: (invite, tokenHash) => Effect.asVoid(invites.insert(invite.id, { invite, tokenHash })),
    get: (id) => Effect.sync(() => Option.map(invites.get(id), (row) => row.invite)),
    list: (organisationId, filter, at, page) =>
      Effect.sync(() => {
        const email = filter.email?.trim().toLowerCase()
        const listed = invites.page(
          ({ invite }) => {
            if (invite.organisation_id !== organisationId) return false
            if (filter.role !== undefined && invite.role !== filter.role) return false
            if (email !== undefined && invite.email !== email) return false
            const expired = invite.status === "pending" && !before(at, invite.expires_at)
            switch (filter.status) {
              case undefined:
                return true
              case "expired":
                return expired
              case "pending":
                return invite.status === "pending" && !expired
              default:
                return invite.status === filter.status
            }
          },
          page,
          (a, b) => a.invite.created_at.localeCompare(b.invite.created_at) || a.invite.id.localeCompare(b.invite.id)
        )
        return { items: listed.items.map((row) => row.invite), total: listed.total }
      }),
    findByTokenHash: (hash) => Effect.sync(() => Option.map(invites.byUnique(`token/${hash}`), (row) => row.invite)),
    renew: (id, tokenHash, expiresAt, at) =>
      Effect.flatMap(
        Effect.sync(() => invites.rows.get(id)),
        (row) =>
          row === undefined || row.invite.status !== "pending"
            ? Effect.succeed(false)
            : Effect.map(
              invites.rekey(id, {
                invite: new Invite({ ...row.invite, expires_at: expiresAt, last_updated_at: at }),
                tokenHash
              }),
              (result) => result === true
            )
      ),
    cancel: (id, at) =>
      invites.replaceWhen(id, (row) => row.invite.status === "pending", (row) => ({
        ...row,
        invite: new Invite({ ...row.invite, status: "cancelled", last_updated_at: at })
      })),
    accept: (id, tokenHash, userId, at) =>
      invites.replaceWhen(
        id,
        (row) => row.invite.status === "pending" && row.tokenHash === tokenHash && before(at, row.invite.expires_at),
        (row) => ({
          ...row,
          invite: new Invite({
            ...row.invite,
            status: "accepted",
            accepted_at: at,
            accepted_user_id: userId,
            last_updated_at: at
          })
        })
      )
  })
}
