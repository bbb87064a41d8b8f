/**
 * What SCIM keeps of users and its groups on `effect/sql`: one row a user, gone with the user (a cascading
 * foreign key); one row a group, and one a member, gone with the group or the user.
 */
import { ScimGroup, ScimIdentity, ScimStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import type { Fragment } from "effect/sql/Statement"
import { Jsonb, timestamps, toJson } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const ScimIdentityRow = ScimIdentity.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(ScimIdentity))

const ScimGroupRow = ScimGroup.mapFields((f) => ({ ...f, ...timestamps, member_ids: Jsonb(f.member_ids) })).pipe(
  Schema.decodeTo(ScimGroup)
)

export const makeScimStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient

  const byUser = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: ScimIdentityRow,
    execute: (userId) => sql`SELECT * FROM scim_identities WHERE user_id = ${userId}`
  })
  const byOrganisation = SqlSchema.findAll({
    Request: Schema.String,
    Result: ScimIdentityRow,
    execute: (organisationId) => sql`SELECT * FROM scim_identities WHERE organisation_id = ${organisationId}`
  })

  /** Groups with their members' ids, as one JSON array a group. */
  const groupsWhere = (where: Fragment) =>
    sql`
      SELECT g.*, COALESCE(
        (SELECT jsonb_agg(m.user_id ORDER BY m.user_id) FROM scim_group_members m WHERE m.group_id = g.id),
        '[]'::jsonb
      ) AS member_ids
      FROM scim_groups g WHERE ${where} ORDER BY g.created_at, g.id`

  const groupById = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: ScimGroupRow,
    execute: (id) => groupsWhere(sql`g.id = ${id}`)
  })
  const groupsByOrganisation = SqlSchema.findAll({
    Request: Schema.String,
    Result: ScimGroupRow,
    execute: (organisationId) => groupsWhere(sql`g.organisation_id = ${organisationId}`)
  })
  const groupsByMember = SqlSchema.findAll({
    Request: Schema.String,
    Result: ScimGroupRow,
    execute: (userId) => groupsWhere(sql`g.id IN (SELECT group_id FROM scim_group_members WHERE user_id = ${userId})`)
  })

  const putMembers = (group: ScimGroup) =>
    Effect.andThen(
      sql`DELETE FROM scim_group_members WHERE group_id = ${group.id}`,
      sql`
        INSERT INTO scim_group_members (group_id, user_id)
        SELECT ${group.id}, value FROM jsonb_array_elements_text(${toJson(group.member_ids)}::jsonb)
        ON CONFLICT DO NOTHING`
    )

  return ScimStore.of({
    putIdentity: (i) =>
      read(sql`
        INSERT INTO scim_identities (user_id, organisation_id, external_id, active, created_at, last_updated_at)
        VALUES (${i.user_id}, ${i.organisation_id}, ${i.external_id}, ${i.active}, ${i.created_at}, ${i.last_updated_at})
        ON CONFLICT (user_id) DO UPDATE SET external_id = EXCLUDED.external_id, active = EXCLUDED.active,
          last_updated_at = EXCLUDED.last_updated_at`).pipe(Effect.asVoid),
    getIdentity: (userId) => read(byUser(userId)),
    identities: (organisationId) => read(byOrganisation(organisationId)),
    removeIdentity: (userId) =>
      read(
        Effect.map(sql`DELETE FROM scim_identities WHERE user_id = ${userId} RETURNING user_id`, (rows) =>
          rows.length > 0)
      ),
    insertGroup: (g) =>
      write(Effect.andThen(
        sql`
          INSERT INTO scim_groups (id, organisation_id, display_name, external_id, created_at, last_updated_at)
          VALUES (${g.id}, ${g.organisation_id}, ${g.display_name}, ${g.external_id}, ${g.created_at},
            ${g.last_updated_at})`,
        putMembers(g)
      )).pipe(Effect.asVoid),
    getGroup: (id) => read(groupById(id)),
    groups: (organisationId) => read(groupsByOrganisation(organisationId)),
    groupsOf: (userId) => read(groupsByMember(userId)),
    updateGroup: (g) =>
      write(Effect.flatMap(
        sql`
          UPDATE scim_groups SET display_name = ${g.display_name}, external_id = ${g.external_id},
            last_updated_at = ${g.last_updated_at}
          WHERE id = ${g.id} RETURNING id`,
        (rows) => rows.length === 0 ? Effect.succeed(false) : Effect.as(putMembers(g), true)
      )),
    removeGroup: (id) =>
      read(Effect.map(sql`DELETE FROM scim_groups WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })
})
