/**
 * Every domain port on `effect/sql`, for PostgreSQL and PGlite alike. Unique violations become the
 * domain's `Conflict`; any other SQL failure is a defect here, at the adapter's edge.
 */
import {
  ApiKey,
  ApiKeyStore,
  AuditLogStore,
  AuditRecord,
  GENESIS_HASH,
  Organisation,
  OrganisationStore,
  type Page,
  type PageRequest,
  type StoredApiKey,
  type StorePorts,
  StoreTransaction,
  StoreUnavailable,
  User,
  UserStore,
  Workspace,
  WorkspaceMember,
  WorkspaceMemberStore,
  WorkspaceStore
} from "@gateway-control/domain"
import { Context, Effect, Layer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { int, iso, isoOrNull, json, text, textOrNull, toJson } from "./internal/rows.ts"
import { first, type Row, toPage, write } from "./internal/statements.ts"
import { makeCredentialStores } from "./SqlCredentialStore.ts"
import { makeMcpStores } from "./SqlMcpStore.ts"
import { makePromptStores } from "./SqlPromptStore.ts"

const organisationFrom = (row: Row) =>
  new Organisation({
    id: text(row.id),
    name: text(row.name),
    created_at: iso(row.created_at),
    last_updated_at: iso(row.last_updated_at)
  })

const workspaceFrom = (row: Row) =>
  new Workspace({
    id: text(row.id),
    organisation_id: text(row.organisation_id),
    name: text(row.name),
    slug: text(row.slug),
    description: textOrNull(row.description),
    created_at: iso(row.created_at),
    last_updated_at: iso(row.last_updated_at)
  })

const userFrom = (row: Row) =>
  new User({
    id: text(row.id),
    organisation_id: text(row.organisation_id),
    email: text(row.email),
    name: textOrNull(row.name),
    role: text(row.role) as User["role"],
    created_at: iso(row.created_at),
    last_updated_at: iso(row.last_updated_at)
  })

const memberFrom = (row: Row) =>
  new WorkspaceMember({
    workspace_id: text(row.workspace_id),
    user_id: text(row.user_id),
    role: text(row.role) as WorkspaceMember["role"],
    created_at: iso(row.created_at)
  })

const apiKeyFrom = (row: Row) =>
  new ApiKey({
    id: text(row.id),
    type: text(row.type) as ApiKey["type"],
    name: text(row.name),
    description: textOrNull(row.description),
    organisation_id: text(row.organisation_id),
    workspace_id: textOrNull(row.workspace_id),
    user_id: textOrNull(row.user_id),
    scopes: json(row.scopes) as Array<string>,
    status: text(row.status) as ApiKey["status"],
    masked_key: text(row.masked_key),
    created_at: iso(row.created_at),
    created_by_user_id: textOrNull(row.created_by_user_id),
    created_by_api_key_id: textOrNull(row.created_by_api_key_id),
    last_updated_at: iso(row.last_updated_at),
    expires_at: isoOrNull(row.expires_at)
  })

const auditFrom = (row: Row) =>
  new AuditRecord({
    id: text(row.id),
    seq: int(row.seq),
    timestamp: iso(row.timestamp),
    organisation_id: textOrNull(row.organisation_id),
    workspace_id: textOrNull(row.workspace_id),
    user_id: textOrNull(row.user_id),
    user_type: text(row.user_type) as AuditRecord["user_type"],
    api_key_id: textOrNull(row.api_key_id),
    action: text(row.action),
    resource_type: text(row.resource_type),
    resource_id: textOrNull(row.resource_id),
    method: text(row.method),
    uri: text(row.uri),
    request_id: text(row.request_id),
    // Read as text: drivers hand a jsonb string back either parsed or not, and a body may be a string.
    request_body: row.request_body_json === null ? null : JSON.parse(text(row.request_body_json)),
    response_status_code: int(row.response_status_code),
    client_ip: textOrNull(row.client_ip),
    sanitized: row.sanitized === true,
    hash_algorithm: text(row.hash_algorithm) as AuditRecord["hash_algorithm"],
    previous_hash: text(row.previous_hash),
    hash: text(row.hash)
  })

/** An arbitrary constant: the advisory lock that serialises audit appends across processes. */
const AUDIT_CHAIN_LOCK = 7_321_004_212

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const read = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A> => Effect.orDie(effect)
  const paged = (request: PageRequest) => sql`LIMIT ${request.limit} OFFSET ${request.offset}`

  const organisations = OrganisationStore.of({
    insert: (o) =>
      write(
        sql`INSERT INTO organisations (id, name, created_at, last_updated_at)
            VALUES (${o.id}, ${o.name}, ${o.created_at}, ${o.last_updated_at})`
      ),
    get: (id) =>
      read(Effect.map(sql<Row>`SELECT * FROM organisations WHERE id = ${id}`, (r) => first(r, organisationFrom))),
    first: read(
      Effect.map(
        sql<Row>`SELECT * FROM organisations ORDER BY created_at, id LIMIT 1`,
        (r) => first(r, organisationFrom)
      )
    )
  })

  const workspaces = WorkspaceStore.of({
    insert: (w) =>
      write(
        sql`INSERT INTO workspaces (id, organisation_id, name, slug, description, created_at, last_updated_at)
            VALUES (${w.id}, ${w.organisation_id}, ${w.name}, ${w.slug}, ${w.description}, ${w.created_at},
                    ${w.last_updated_at})`
      ),
    get: (id) => read(Effect.map(sql<Row>`SELECT * FROM workspaces WHERE id = ${id}`, (r) => first(r, workspaceFrom))),
    findBySlug: (organisationId, slug) =>
      read(
        Effect.map(
          sql<Row>`SELECT * FROM workspaces WHERE organisation_id = ${organisationId} AND slug = ${slug}`,
          (r) => first(r, workspaceFrom)
        )
      ),
    list: (organisationId, request) =>
      read(
        Effect.map(
          sql<Row>`SELECT *, count(*) OVER () AS total_count FROM workspaces
                   WHERE organisation_id = ${organisationId}
                   ORDER BY created_at, id ${paged(request)}`,
          (rows) => toPage(rows, workspaceFrom)
        ).pipe(Effect.flatMap((page) => withTotal(page, request, countWorkspaces(organisationId))))
      )
  })

  // `count(*) OVER ()` comes with the rows; a page past the end has no rows, so count separately then.
  const withTotal = <A>(page: Page<A>, request: PageRequest, count: Effect.Effect<number, SqlError>) =>
    page.items.length === 0 && request.offset > 0
      ? Effect.map(count, (total) => ({ items: [], total }))
      : Effect.succeed(page)

  const countOf = (query: Effect.Effect<ReadonlyArray<Row>, SqlError>) => Effect.map(query, (rows) => int(rows[0].n))
  const countWorkspaces = (organisationId: string) =>
    countOf(sql<Row>`SELECT count(*) AS n FROM workspaces WHERE organisation_id = ${organisationId}`)

  const users = UserStore.of({
    insert: (u) =>
      write(
        sql`INSERT INTO users (id, organisation_id, email, name, role, created_at, last_updated_at)
            VALUES (${u.id}, ${u.organisation_id}, ${u.email.toLowerCase()}, ${u.name}, ${u.role}, ${u.created_at},
                    ${u.last_updated_at})`
      ),
    get: (id) => read(Effect.map(sql<Row>`SELECT * FROM users WHERE id = ${id}`, (r) => first(r, userFrom))),
    list: (organisationId, request) =>
      read(
        Effect.map(
          sql<Row>`SELECT *, count(*) OVER () AS total_count FROM users WHERE organisation_id = ${organisationId}
                   ORDER BY created_at, id ${paged(request)}`,
          (rows) => toPage(rows, userFrom)
        ).pipe(
          Effect.flatMap((page) =>
            withTotal(
              page,
              request,
              countOf(sql<Row>`SELECT count(*) AS n FROM users WHERE organisation_id = ${organisationId}`)
            )
          )
        )
      )
  })

  const members = WorkspaceMemberStore.of({
    upsert: (m) =>
      read(
        sql`INSERT INTO workspace_members (workspace_id, user_id, role, created_at)
            VALUES (${m.workspace_id}, ${m.user_id}, ${m.role}, ${m.created_at})
            ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`
      ).pipe(Effect.asVoid),
    get: (workspaceId, userId) =>
      read(
        Effect.map(
          sql<Row>`SELECT * FROM workspace_members WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`,
          (r) => first(r, memberFrom)
        )
      ),
    list: (workspaceId, request) =>
      read(
        Effect.map(
          sql<Row>`SELECT *, count(*) OVER () AS total_count FROM workspace_members
                   WHERE workspace_id = ${workspaceId} ORDER BY created_at, user_id ${paged(request)}`,
          (rows) => toPage(rows, memberFrom)
        ).pipe(
          Effect.flatMap((page) =>
            withTotal(
              page,
              request,
              countOf(sql<Row>`SELECT count(*) AS n FROM workspace_members WHERE workspace_id = ${workspaceId}`)
            )
          )
        )
      ),
    remove: (workspaceId, userId) =>
      read(
        Effect.map(
          sql<Row>`DELETE FROM workspace_members WHERE workspace_id = ${workspaceId} AND user_id = ${userId}
                   RETURNING user_id`,
          (rows) => rows.length > 0
        )
      )
  })

  const apiKeys = ApiKeyStore.of({
    insert: ({ digest, key: k }: StoredApiKey) =>
      write(
        sql`INSERT INTO api_keys (id, organisation_id, workspace_id, user_id, type, name, description, scopes, status,
                                  masked_key, digest, created_at, created_by_user_id, created_by_api_key_id,
                                  last_updated_at, expires_at)
            VALUES (${k.id}, ${k.organisation_id}, ${k.workspace_id}, ${k.user_id}, ${k.type}, ${k.name},
                    ${k.description}, ${toJson(k.scopes)}::jsonb, ${k.status}, ${k.masked_key}, ${digest},
                    ${k.created_at}, ${k.created_by_user_id}, ${k.created_by_api_key_id}, ${k.last_updated_at},
                    ${k.expires_at})`
      ),
    findByDigest: (digest) =>
      read(
        Effect.map(
          sql<Row>`SELECT * FROM api_keys WHERE digest = ${digest}`,
          (r) => first(r, (row) => ({ key: apiKeyFrom(row), digest: text(row.digest) }))
        )
      ),
    get: (id) => read(Effect.map(sql<Row>`SELECT * FROM api_keys WHERE id = ${id}`, (r) => first(r, apiKeyFrom))),
    list: (organisationId, workspaceId, request) => {
      const where = workspaceId === null
        ? sql`organisation_id = ${organisationId}`
        : sql`organisation_id = ${organisationId} AND workspace_id = ${workspaceId}`
      return read(
        Effect.map(
          sql<Row>`SELECT *, count(*) OVER () AS total_count FROM api_keys WHERE ${where}
                   ORDER BY created_at, id ${paged(request)}`,
          (rows) => toPage(rows, apiKeyFrom)
        ).pipe(
          Effect.flatMap((page) =>
            withTotal(page, request, countOf(sql<Row>`SELECT count(*) AS n FROM api_keys WHERE ${where}`))
          )
        )
      )
    },
    revoke: (id, at) =>
      read(
        Effect.map(
          sql<Row>`UPDATE api_keys SET status = 'revoked', last_updated_at = ${at} WHERE id = ${id} RETURNING id`,
          (rows) => rows.length > 0
        )
      )
  })

  const auditLogs = AuditLogStore.of({
    append: (build) =>
      read(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${AUDIT_CHAIN_LOCK})`
        const last = yield* sql<Row>`SELECT seq, hash FROM audit_logs ORDER BY seq DESC LIMIT 1`
        const r = last.length === 0 ? build(GENESIS_HASH, 1) : build(text(last[0].hash), int(last[0].seq) + 1)
        yield* sql`INSERT INTO audit_logs (seq, id, timestamp, organisation_id, workspace_id, user_id, user_type,
                     api_key_id, action, resource_type, resource_id, method, uri, request_id, request_body,
                     response_status_code, client_ip, sanitized, hash_algorithm, previous_hash, hash)
                   VALUES (${r.seq}, ${r.id}, ${r.timestamp}, ${r.organisation_id}, ${r.workspace_id}, ${r.user_id},
                     ${r.user_type}, ${r.api_key_id}, ${r.action}, ${r.resource_type}, ${r.resource_id}, ${r.method},
                     ${r.uri}, ${r.request_id}, ${toJson(r.request_body)}::jsonb, ${r.response_status_code},
                     ${r.client_ip}, ${r.sanitized}, ${r.hash_algorithm}, ${r.previous_hash}, ${r.hash})`
        return r
      })),
    list: (organisationId, filters, request) => {
      const clauses = [
        organisationId === null ? sql`organisation_id IS NULL` : sql`organisation_id = ${organisationId}`
      ]
      if (filters.startTime !== undefined) clauses.push(sql`timestamp >= ${filters.startTime}`)
      if (filters.endTime !== undefined) clauses.push(sql`timestamp <= ${filters.endTime}`)
      if (filters.workspaceId !== undefined) clauses.push(sql`workspace_id = ${filters.workspaceId}`)
      if (filters.userId !== undefined) clauses.push(sql`user_id = ${filters.userId}`)
      if (filters.action !== undefined) clauses.push(sql`action = ${filters.action}`)
      if (filters.resourceType !== undefined) clauses.push(sql`resource_type = ${filters.resourceType}`)
      if (filters.responseStatusCode !== undefined) {
        clauses.push(sql`response_status_code = ${filters.responseStatusCode}`)
      }
      const where = sql.and(clauses)
      return read(
        Effect.map(
          sql<Row>`SELECT *, request_body::text AS request_body_json, count(*) OVER () AS total_count
                   FROM audit_logs WHERE ${where} ORDER BY seq DESC ${paged(request)}`,
          (rows) => toPage(rows, auditFrom)
        ).pipe(
          Effect.flatMap((page) =>
            withTotal(page, request, countOf(sql<Row>`SELECT count(*) AS n FROM audit_logs WHERE ${where}`))
          )
        )
      )
    },
    scan: (afterSeq, limit) =>
      read(
        Effect.map(
          sql<Row>`SELECT *, request_body::text AS request_body_json FROM audit_logs
                   WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`,
          (rows) => rows.map(auditFrom)
        )
      )
  })

  const transaction = StoreTransaction.of({
    // BEGIN/COMMIT failures are infrastructure faults: defects, like any other SQL failure here.
    withTransaction: (effect) =>
      sql.withTransaction(effect).pipe(
        Effect.catchIf((error): error is SqlError => isSqlError(error), (error) => Effect.die(error))
      ) as any,
    lock: (name) => read(Effect.asVoid(sql`SELECT pg_advisory_xact_lock(hashtext(${`gateway-control:${name}`}))`)),
    afterCommit: (effect) => sql.afterCommit(effect),
    ping: sql`SELECT 1`.pipe(
      Effect.asVoid,
      Effect.mapError((error) => new StoreUnavailable({ message: error.message }))
    )
  })

  return Context.make(OrganisationStore, organisations).pipe(
    Context.add(WorkspaceStore, workspaces),
    Context.add(UserStore, users),
    Context.add(WorkspaceMemberStore, members),
    Context.add(ApiKeyStore, apiKeys),
    Context.add(AuditLogStore, auditLogs),
    Context.add(StoreTransaction, transaction)
  )
})

const makeAll = Effect.gen(function*() {
  const base = yield* make
  const prompts = yield* makePromptStores
  const mcp = yield* makeMcpStores
  const credentials = yield* makeCredentialStores
  return Context.merge(Context.merge(Context.merge(base, prompts), mcp), credentials)
})

/** Every store port on the `SqlClient` in context. Run the migrations first (`migrate`). */
export const layerSql: Layer.Layer<
  StorePorts,
  never,
  SqlClient.SqlClient
> = Layer.effectContext(makeAll)
