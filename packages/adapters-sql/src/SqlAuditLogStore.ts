/**
 * The hash-chained audit log on `effect/sql`. `audit_chain_heads` holds each chain's end (its last position
 * and hash); an append locks a chain's row to the end of its transaction, across processes, so each chain's
 * positions run 1, 2, 3… without gaps and each record links to the one before it. The heads are a
 * convenience for appending: verification reads the records alone.
 *
 * An append takes the first chain whose row no other transaction holds, chain 0 first: a lone writer, and
 * PGlite (one session), keep one chain; concurrent writers spread over the chains (16, made by migration
 * 0009) instead of waiting for each other's commits (see `AuditChain.ts` in the domain). When every chain
 * is held, it waits for one. A row lock, unlike an advisory lock taken in the same statement, gives the
 * row as the previous holder committed it (PostgreSQL re-reads a row it waited for).
 */
import { AuditLogStore, AuditRecord } from "@gateway-control/domain"
import { Effect, Option, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { Int, Timestamp, toJson } from "./internal/rows.ts"
import { failOrDie, pageOf, read, transactionFailure } from "./internal/statements.ts"

/**
 * The body is read as `request_body::text`: drivers hand a jsonb value back parsed or not, and a body may
 * itself be a JSON string, so only its text is unambiguous.
 */
const AuditRow = Schema.Struct({
  ...AuditRecord.fields,
  chain: Int,
  seq: Int,
  timestamp: Timestamp,
  response_status_code: Int,
  request_body: Schema.NullOr(Schema.fromJsonString(Schema.Unknown))
}).pipe(Schema.decodeTo(AuditRecord))

/** Every column, the body as its JSON text. */
const auditColumns = `chain, seq, id, timestamp, organisation_id, workspace_id, user_id, user_type, api_key_id, action,
  resource_type, resource_id, method, uri, request_id, request_body::text AS request_body, response_status_code,
  client_ip, workload_issuer, workload_subject, user_email, session_id, identity_provider, identity_subject, trace_id,
  sanitized, hash_algorithm, previous_hash, hash`

/** A chain held by this transaction: its last record's position (0 when empty) and hash. */
const ChainTail = Schema.Struct({ chain: Int, seq: Int, hash: Schema.String })

export const makeAuditLogStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(auditColumns)

  /** The first chain no other transaction holds, now held by this one; none when every chain is held. */
  const takeFreeChain = SqlSchema.findOneOption({
    Request: Schema.Void,
    Result: ChainTail,
    execute: () => sql`SELECT chain, seq, hash FROM audit_chain_heads ORDER BY chain LIMIT 1 FOR UPDATE SKIP LOCKED`
  })
  /** Some chain, once its holder commits. */
  const waitForAnyChain = SqlSchema.findOneOption({
    Request: Schema.Void,
    Result: ChainTail,
    execute: () => sql`SELECT chain, seq, hash FROM audit_chain_heads ORDER BY random() LIMIT 1 FOR UPDATE`
  })
  const takeChain = Effect.flatMap(takeFreeChain(undefined), (free) =>
    Effect.flatMap(
      free._tag === "Some" ? Effect.succeed(free) : waitForAnyChain(undefined),
      (held) => held._tag === "Some" ? Effect.succeed(held.value) : Effect.die("audit_chain_heads has no chains")
    ))

  const scan = SqlSchema.findAll({
    Request: Schema.Struct({ chain: Schema.Int, seq: Schema.Int, limit: Schema.Int }),
    Result: AuditRow,
    execute: ({ chain, limit, seq }) =>
      sql`SELECT ${columns} FROM audit_logs WHERE (chain, seq) > (${chain}, ${seq})
          ORDER BY chain, seq LIMIT ${limit}`
  })

  /** Writes the record at its position and moves its chain's head there: one statement. */
  const insert = (r: AuditRecord) =>
    sql`WITH moved AS (UPDATE audit_chain_heads SET seq = ${r.seq}, hash = ${r.hash} WHERE chain = ${r.chain})
        INSERT INTO audit_logs (chain, seq, id, timestamp, organisation_id, workspace_id, user_id,
          user_type, api_key_id, action, resource_type, resource_id, method, uri, request_id,
          request_body, response_status_code, client_ip, workload_issuer, workload_subject, user_email, session_id,
          identity_provider, identity_subject, trace_id, sanitized, hash_algorithm, previous_hash, hash)
        VALUES (${r.chain}, ${r.seq}, ${r.id}, ${r.timestamp}, ${r.organisation_id}, ${r.workspace_id},
          ${r.user_id}, ${r.user_type}, ${r.api_key_id}, ${r.action}, ${r.resource_type}, ${r.resource_id},
          ${r.method}, ${r.uri}, ${r.request_id}, ${toJson(r.request_body)}::jsonb, ${r.response_status_code},
          ${r.client_ip}, ${r.workload_issuer}, ${r.workload_subject}, ${r.user_email}, ${r.session_id},
          ${r.identity_provider}, ${r.identity_subject}, ${r.trace_id}, ${r.sanitized}, ${r.hash_algorithm},
          ${r.previous_hash}, ${r.hash})`

  /** The plain records no seal names yet (migration 0015), the row held by this transaction. */
  const pendingLegacy = SqlSchema.findOneOption({
    Request: Schema.Void,
    Result: Schema.Struct({ plain_records: Int }),
    execute: () => sql`SELECT plain_records FROM audit_legacy_prefix WHERE NOT sealed FOR UPDATE`
  })
  /** Chain 0's end, once its holder commits: the seal goes after the plain records it names. */
  const takeChainZero = SqlSchema.findOne({
    Request: Schema.Void,
    Result: ChainTail,
    execute: () => sql`SELECT chain, seq, hash FROM audit_chain_heads WHERE chain = 0 FOR UPDATE`
  })

  /**
   * Joins the current transaction with no savepoint, or runs in one of its own. The chain is held until
   * the commit, so every round trip in between counts: an append is two statements.
   */
  const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(
      Effect.serviceOption(sql.transactionService),
      (current) => current._tag === "Some" ? effect : Effect.catch(sql.withTransaction(effect), transactionFailure)
    )

  return AuditLogStore.of({
    append: (build) =>
      inTransaction(read(Effect.gen(function*() {
        const tail = yield* takeChain
        const r = build({ chain: tail.chain, seq: tail.seq + 1, previousHash: tail.hash })
        yield* insert(r)
        return r
      }))),
    // Concurrent first starts keep one value: the first insert wins, and every start reads what was kept.
    claimKeyCheck: (value) =>
      read(Effect.gen(function*() {
        yield* sql`INSERT INTO master_key_check (value) VALUES (${value}) ON CONFLICT (only_row) DO NOTHING`
        const rows = yield* sql<{ readonly value: string }>`SELECT value FROM master_key_check`
        return rows[0]?.value ?? value
      })),
    // The row lock makes concurrent starts write one seal: the second finds it sealed.
    sealLegacyPrefix: (build) =>
      Effect.catch(
        sql.withTransaction(Effect.gen(function*() {
          const pending = yield* pendingLegacy(undefined)
          if (Option.isNone(pending)) return Option.none()
          const plainRecords = pending.value.plain_records
          let sealed = Option.none<AuditRecord>()
          if (plainRecords > 0) {
            const tail = yield* takeChainZero(undefined)
            const r = build(plainRecords, { chain: 0, seq: tail.seq + 1, previousHash: tail.hash })
            yield* insert(r)
            sealed = Option.some(r)
          }
          yield* sql`UPDATE audit_legacy_prefix SET sealed = true`
          return sealed
        })),
        failOrDie
      ),
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
      if (filters.workloadSubject !== undefined) clauses.push(sql`workload_subject = ${filters.workloadSubject}`)
      if (filters.userEmail !== undefined) clauses.push(sql`lower(user_email) = ${filters.userEmail.toLowerCase()}`)
      if (filters.responseStatusCode !== undefined) {
        clauses.push(sql`response_status_code = ${filters.responseStatusCode}`)
      }
      const where = sql.and(clauses)
      return pageOf(
        AuditRow,
        sql`SELECT ${columns}, count(*) OVER () AS total_count FROM audit_logs WHERE ${where}
            ORDER BY timestamp DESC, chain DESC, seq DESC LIMIT ${request.limit} OFFSET ${request.offset}`,
        request,
        sql`SELECT count(*) AS n FROM audit_logs WHERE ${where}`
      )
    },
    scan: (after, limit) => read(scan({ chain: after.chain, seq: after.seq, limit }))
  })
})
