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
import type { SqlError } from "effect/sql/SqlError"
import * as SqlSchema from "effect/sql/SqlSchema"
import { queriesOn } from "./internal/queries.ts"
import { Int, Timestamp, timestamps } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const OrganisationRow = Organisation.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(Organisation))
const WorkspaceRow = Workspace.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(Workspace))
const UserRow = User.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(User))
const MemberRow = WorkspaceMember.mapFields((f) => ({ ...f, created_at: Timestamp, last_updated_at: Timestamp })).pipe(
  Schema.decodeTo(WorkspaceMember)
)

export const makeAccessStores = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, byPair, listing } = queriesOn(sql)

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

  /** Whether the statement, which returns the rows it wrote, wrote any. */
  const changed = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
    read(Effect.map(statement, (rows) => rows.length > 0))

  // A deleted workspace is a row every read passes by.
  const liveWorkspace = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: WorkspaceRow,
    execute: (id) => sql`SELECT * FROM workspaces WHERE id = ${id} AND deleted_at IS NULL`
  })
  const liveWorkspaceBySlug = SqlSchema.findOneOption({
    Request: Schema.Struct({ organisationId: Schema.String, slug: Schema.String }),
    Result: WorkspaceRow,
    execute: ({ organisationId, slug }) =>
      sql`SELECT * FROM workspaces WHERE organisation_id = ${organisationId} AND slug = ${slug} AND deleted_at IS NULL`
  })
  const HoldingsRow = Schema.Struct({
    api_keys: Int,
    prompts: Int,
    prompt_partials: Int,
    providers: Int,
    integrations: Int,
    configs: Int,
    mcp_integrations: Int,
    mcp_servers: Int
  })
  const holdingsOf = (id: string) =>
    Effect.flatMap(
      sql`SELECT
            (SELECT count(*) FROM api_keys WHERE workspace_id = ${id} AND status = 'active') AS api_keys,
            (SELECT count(*) FROM prompts WHERE workspace_id = ${id}) AS prompts,
            (SELECT count(*) FROM prompt_partials WHERE workspace_id = ${id}) AS prompt_partials,
            (SELECT count(*) FROM providers WHERE workspace_id = ${id}) AS providers,
            (SELECT count(*) FROM integrations WHERE workspace_id = ${id}) AS integrations,
            (SELECT count(*) FROM configs WHERE workspace_id = ${id}) AS configs,
            (SELECT count(*) FROM mcp_integrations WHERE workspace_id = ${id} AND status <> 'archived')
              AS mcp_integrations,
            (SELECT count(*) FROM mcp_servers WHERE workspace_id = ${id}) AS mcp_servers`,
      (rows) => Schema.decodeUnknownEffect(HoldingsRow)(rows[0])
    )

  const workspaces = WorkspaceStore.of({
    insert: (w) =>
      write(
        sql`INSERT INTO workspaces (id, organisation_id, name, slug, description, created_at, last_updated_at)
            VALUES (${w.id}, ${w.organisation_id}, ${w.name}, ${w.slug}, ${w.description}, ${w.created_at},
                    ${w.last_updated_at})`
      ),
    get: (id) => read(liveWorkspace(id)),
    findBySlug: (organisationId, slug) => read(liveWorkspaceBySlug({ organisationId, slug })),
    list: (organisationId, request, filter = {}) =>
      listing(
        WorkspaceRow,
        "workspaces",
        sql.and([
          sql`organisation_id = ${organisationId} AND deleted_at IS NULL`,
          ...(filter.name === undefined ? [] : [sql`strpos(name, ${filter.name}) > 0`]),
          ...(filter.exact_name === undefined ? [] : [sql`name = ${filter.exact_name}`])
        ]),
        request
      ),
    update: (w) =>
      changed(
        sql`UPDATE workspaces SET name = ${w.name}, description = ${w.description}, last_updated_at = ${w.last_updated_at}
            WHERE id = ${w.id} AND deleted_at IS NULL RETURNING id`
      ),
    remove: (id, at) =>
      changed(sql`UPDATE workspaces SET deleted_at = ${at} WHERE id = ${id} AND deleted_at IS NULL RETURNING id`),
    holdings: (id) => read(holdingsOf(id))
  })

  const users = UserStore.of({
    insert: (u) =>
      write(
        sql`INSERT INTO users (id, organisation_id, email, name, role, created_at, last_updated_at)
            VALUES (${u.id}, ${u.organisation_id}, ${u.email.toLowerCase()}, ${u.name}, ${u.role}, ${u.created_at},
                    ${u.last_updated_at})`
      ),
    get: byId("users", UserRow),
    findByEmail: byPair("users", "organisation_id", "email", UserRow),
    list: (organisationId, request, filter = {}) =>
      listing(
        UserRow,
        "users",
        sql.and([
          sql`organisation_id = ${organisationId}`,
          ...(filter.role === undefined ? [] : [sql`role = ${filter.role}`]),
          ...(filter.email === undefined ? [] : [sql`email = ${filter.email}`])
        ]),
        request
      ),
    update: (u) =>
      changed(
        sql`UPDATE users SET name = ${u.name}, role = ${u.role}, last_updated_at = ${u.last_updated_at}
            WHERE id = ${u.id} RETURNING id`
      ),
    changeEmail: (id, email, at) =>
      write(
        Effect.map(
          sql`UPDATE users SET email = ${email.toLowerCase()}, last_updated_at = ${at} WHERE id = ${id} RETURNING id`,
          (rows) => rows.length > 0
        )
      ),
    // Memberships go by the foreign key's cascade; keys that acted as the user keep naming the id.
    remove: (id) => changed(sql`DELETE FROM users WHERE id = ${id} RETURNING id`)
  })

  const members = WorkspaceMemberStore.of({
    upsert: (m) =>
      read(
        sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at, last_updated_at)
            VALUES (${m.workspace_id}, ${m.user_id}, ${m.role}, ${m.created_at}, ${m.last_updated_at})
            ON CONFLICT (workspace_id, user_id)
            DO UPDATE SET role = EXCLUDED.role, last_updated_at = EXCLUDED.last_updated_at`
      ).pipe(Effect.asVoid),
    get: byPair("workspace_members", "workspace_id", "user_id", MemberRow),
    list: (workspaceId, request, filter = {}) =>
      listing(
        MemberRow,
        "workspace_members",
        sql.and([
          sql`workspace_id = ${workspaceId}`,
          ...(filter.role === undefined ? [] : [sql`role = ${filter.role}`]),
          ...(filter.email === undefined
            ? []
            : [sql`user_id IN (SELECT id FROM users WHERE email = ${filter.email})`]),
          // strpos rather than LIKE: the search is text, and its % or _ match only themselves.
          ...(filter.search === undefined ? [] : [
            sql`user_id IN (SELECT id FROM users WHERE strpos(lower(email), lower(${filter.search})) > 0
                OR strpos(lower(coalesce(name, '')), lower(${filter.search})) > 0)`
          ]),
          ...(filter.userIds === undefined
            ? []
            : [filter.userIds.length === 0 ? sql`FALSE` : sql`user_id IN ${sql.in(filter.userIds)}`]),
          ...(filter.exceptUserIds === undefined || filter.exceptUserIds.length === 0
            ? []
            : [sql`user_id NOT IN ${sql.in(filter.exceptUserIds)}`])
        ]),
        request,
        "user_id"
      ),
    remove: (workspaceId, userId) =>
      read(
        Effect.map(
          sql`DELETE FROM workspace_members WHERE workspace_id = ${workspaceId} AND user_id = ${userId}
              RETURNING user_id`,
          (rows) => rows.length > 0
        )
      ),
    workspacesOf: (userId) =>
      read(
        Effect.map(
          sql<{ readonly workspace_id: string }>`SELECT workspace_id FROM workspace_members WHERE user_id = ${userId}
              ORDER BY created_at, workspace_id`,
          (rows) => rows.map((row) => row.workspace_id)
        )
      )
  })

  return Context.make(OrganisationStore, organisations).pipe(
    Context.add(WorkspaceStore, workspaces),
    Context.add(UserStore, users),
    Context.add(WorkspaceMemberStore, members)
  )
})
