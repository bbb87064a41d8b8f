/**
 * Organisations, workspaces, users and workspace members on `effect/sql`. Rows decode with the domain's
 * schemas; only the columns the drivers return differently (timestamps) are swapped for column codecs.
 */
import {
  Organisation,
  OrganisationStore,
  User,
  UserStore,
  Workspace,
  WorkspaceMember,
  WorkspaceMemberStore,
  WorkspaceStore
} from "@gateway-control/domain"
import { Context, Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Timestamp, timestamps } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const OrganisationRow = Organisation.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(Organisation))
const WorkspaceRow = Workspace.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(Workspace))
const UserRow = User.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(User))
const MemberRow = WorkspaceMember.mapFields((f) => ({ ...f, created_at: Timestamp })).pipe(
  Schema.decodeTo(WorkspaceMember)
)

export const makeAccessStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, byPair, bySlug, listing } = queriesOn(sql)

  const oldestOrganisation = SqlSchema.findOneOption({
    Request: Schema.Void,
    Result: OrganisationRow,
    execute: () => sql`SELECT * FROM organisations ORDER BY created_at, id LIMIT 1`
  })
  const organisations = OrganisationStore.of({
    insert: (o) =>
      write(
        sql`INSERT INTO organisations (id, name, created_at, last_updated_at)
            VALUES (${o.id}, ${o.name}, ${o.created_at}, ${o.last_updated_at})`
      ),
    get: byId("organisations", OrganisationRow),
    first: read(oldestOrganisation(undefined))
  })

  const workspaces = WorkspaceStore.of({
    insert: (w) =>
      write(
        sql`INSERT INTO workspaces (id, organisation_id, name, slug, description, created_at, last_updated_at)
            VALUES (${w.id}, ${w.organisation_id}, ${w.name}, ${w.slug}, ${w.description}, ${w.created_at},
                    ${w.last_updated_at})`
      ),
    get: byId("workspaces", WorkspaceRow),
    findBySlug: bySlug("workspaces", "organisation_id", WorkspaceRow),
    list: (organisationId, request) =>
      listing(WorkspaceRow, "workspaces", sql`organisation_id = ${organisationId}`, request)
  })

  const users = UserStore.of({
    insert: (u) =>
      write(
        sql`INSERT INTO users (id, organisation_id, email, name, role, created_at, last_updated_at)
            VALUES (${u.id}, ${u.organisation_id}, ${u.email.toLowerCase()}, ${u.name}, ${u.role}, ${u.created_at},
                    ${u.last_updated_at})`
      ),
    get: byId("users", UserRow),
    list: (organisationId, request) => listing(UserRow, "users", sql`organisation_id = ${organisationId}`, request)
  })

  const members = WorkspaceMemberStore.of({
    upsert: (m) =>
      read(
        sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
            VALUES (${m.workspace_id}, ${m.user_id}, ${m.role}, ${m.created_at})
            ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`
      ).pipe(Effect.asVoid),
    get: byPair("workspace_members", "workspace_id", "user_id", MemberRow),
    list: (workspaceId, request) =>
      listing(MemberRow, "workspace_members", sql`workspace_id = ${workspaceId}`, request, "user_id"),
    remove: (workspaceId, userId) =>
      read(
        Effect.map(
          sql`DELETE FROM workspace_members WHERE workspace_id = ${workspaceId} AND user_id = ${userId}
              RETURNING user_id`,
          (rows) => rows.length > 0
        )
      )
  })

  return Context.make(OrganisationStore, organisations).pipe(
    Context.add(WorkspaceStore, workspaces),
    Context.add(UserStore, users),
    Context.add(WorkspaceMemberStore, members)
  )
})
