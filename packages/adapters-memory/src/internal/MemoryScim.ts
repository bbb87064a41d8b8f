/** What SCIM keeps of users and its groups, in memory: one row a user, one a group with its members. */
import { Conflict, ScimGroup, type ScimIdentity, ScimStore, type User } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"
import { Table } from "./Table.ts"

export const makeScimStore = (state: MemoryState, users: Table<User>) => {
  const identities = new Table<ScimIdentity>(state)
  const groups = new Table<ScimGroup>(state, (g) => [`${g.organisation_id}/${g.display_name.toLowerCase()}`])

  const taken = (name: string) =>
    Effect.fail(new Conflict({ message: `A group named '${name}' already exists.`, param: "displayName" }))

  /** The group as stored, its members who are still users: a removed user leaves every group, as in SQL. */
  const current = (group: ScimGroup) => {
    const members = group.member_ids.filter((id) => users.rows.has(id))
    return members.length === group.member_ids.length ? group : new ScimGroup({ ...group, member_ids: members })
  }

  const byCreation = (a: ScimGroup, b: ScimGroup) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

  return ScimStore.of({
    putIdentity: (identity) =>
      Effect.flatMap(
        identities.replace(identity.user_id, () => identity),
        (replaced) => replaced ? Effect.void : Effect.asVoid(identities.insert(identity.user_id, identity))
      ),
    getIdentity: (userId) => Effect.sync(() => identities.get(userId)),
    identities: (organisationId) =>
      Effect.sync(() => [...identities.rows.values()].filter((i) => i.organisation_id === organisationId)),
    removeIdentity: (userId) => identities.delete(userId),
    insertGroup: (group) =>
      Effect.flatMap(
        groups.insert(group.id, group),
        (clash) => clash === undefined ? Effect.void : taken(group.display_name)
      ),
    getGroup: (id) => Effect.sync(() => Option.map(groups.get(id), current)),
    groups: (organisationId) =>
      Effect.sync(() =>
        [...groups.rows.values()].filter((g) => g.organisation_id === organisationId).sort(byCreation).map(current)
      ),
    groupsOf: (userId) =>
      Effect.sync(() =>
        users.rows.has(userId)
          ? [...groups.rows.values()].filter((g) => g.member_ids.includes(userId)).sort(byCreation).map(current)
          : []
      ),
    updateGroup: (group) =>
      Effect.flatMap(
        groups.get(group.id).pipe(Option.match({
          onNone: () => Effect.succeed<string | boolean>(false),
          onSome: (previous) =>
            groups.rekey(
              group.id,
              new ScimGroup({
                ...previous,
                display_name: group.display_name,
                external_id: group.external_id,
                member_ids: group.member_ids,
                last_updated_at: group.last_updated_at
              })
            )
        })),
        (result) => typeof result === "string" ? taken(group.display_name) : Effect.succeed(result)
      ),
    removeGroup: (id) => groups.delete(id)
  })
}
