/**
 * Someone with write access to the database, but not the gateway's master key, edits the audit log.
 * Every edit must fail `verify`; records of before the keyed chain must still verify.
 */
import type { AuditSigner, MasterKeyMismatch, PlatformCrypto, StoreError } from "@gateway-control/domain"
import {
  Audit,
  AuditLogStore,
  type AuditRecord,
  chainHash,
  GENESIS_HASH,
  LEGACY_SEAL_ACTION,
  type StorePorts
} from "@gateway-control/domain"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import { canonicalJson } from "../../domain/src/audit/internal/canonicalJson.ts"
import { entry, layerAudit } from "../../domain/test/contract/AuditContract.ts"
import { hmacHex, sha256Hex } from "../../domain/test/contract/TestCrypto.ts"
import { migrations } from "../src/Migrations.ts"
import { pgliteFromSnapshot, postgresInFreshSchema, postgresUrl } from "./support/Stores.ts"

type Services = Audit | AuditLogStore | SqlClient.SqlClient | PlatformCrypto | AuditSigner

/**
 * The audit log's migrations alone (0008, the keyed chain; 0014, chains; 0015, the legacy prefix): the store
 * is migrated to the latest, and the migrator runs only what comes after the latest it recorded, so the test
 * forgets 0008 and every later record and runs these on their own.
 */
const migrateAudit = Migrator.make({})({
  loader: Migrator.fromRecord({
    "0008_audit_keyed_chain": migrations["0008_audit_keyed_chain"]!,
    "0014_audit_chains": migrations["0014_audit_chains"]!,
    "0015_audit_legacy_prefix": migrations["0015_audit_legacy_prefix"]!
  })
})

/** Runs `effect` with the audit log as a restarted gateway builds it, over the same store. */
const afterRestart = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, Layer.fresh(Audit.layer))

const actor = { organisationId: "org-tamper", keyId: "key-1", userId: null }

/** Runs `body` against a fresh store with the audit log on it. */
const withStore = async <E>(
  makeStore: () => Layer.Layer<StorePorts | SqlClient.SqlClient, E>,
  body: Effect.Effect<void, StoreError | MasterKeyMismatch, Services>
) => {
  const runtime = ManagedRuntime.make(layerAudit(makeStore()))
  try {
    await runtime.runPromise(body)
  } finally {
    await runtime.dispose()
  }
}

const records = Effect.flatMap(Effect.service(AuditLogStore), (store) => store.scan({ chain: 0, seq: 0 }, 1000))
const verify = Effect.flatMap(Effect.service(Audit), (audit) => audit.verify())
const appendRecords = (n: number) =>
  Effect.flatMap(
    Effect.service(Audit),
    (audit) =>
      Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
        audit.record(entry(actor, { requestBody: { name: `w${i}` } })))
  )

/** Writes a record's columns back as given. */
const overwrite = (r: AuditRecord) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) =>
      Effect.orDie(sql`UPDATE audit_logs SET request_body = ${JSON.stringify(r.request_body)}::jsonb,
                   hash_algorithm = ${r.hash_algorithm}, previous_hash = ${r.previous_hash}, hash = ${r.hash}
                   WHERE chain = ${r.chain} AND seq = ${r.seq}`)
  )

/** Edits record `seq`'s body, then re-links it and every later record with `rehash`, as a forger would. */
const editAndRelink = (
  seq: number,
  rehash: (content: Omit<AuditRecord, "hash">) => { algorithm?: AuditRecord["hash_algorithm"]; hash: string }
) =>
  Effect.gen(function*() {
    let previous: string | undefined
    for (const r of yield* records) {
      if (r.seq < seq) continue
      const { hash: _hash, ...content } = r
      const edited = {
        ...content,
        previous_hash: previous ?? r.previous_hash,
        request_body: r.seq === seq ? { name: "forged" } : r.request_body
      }
      const { algorithm, hash } = rehash(edited)
      const rewritten = { ...edited, hash_algorithm: algorithm ?? edited.hash_algorithm, hash } as AuditRecord
      yield* overwrite(rewritten)
      previous = hash
    }
  })

/** The hash of the old rule: plain SHA-256 over what a record held before the keyed chain. */
const legacyHash = (content: Omit<AuditRecord, "hash">) => {
  // The fields records had before the keyed chain: no sanitized flag, algorithm, chain or workload.
  const {
    previous_hash,
    sanitized: _s,
    hash_algorithm: _a,
    chain: _c,
    workload_issuer: _wi,
    workload_subject: _ws,
    user_email: _ue,
    session_id: _si,
    identity_provider: _ip,
    identity_subject: _is,
    trace_id: _ti,
    ...legacy
  } = content
  return sha256Hex(`${previous_hash}\n${canonicalJson(legacy)}`)
}

const tamperSuite = <E>(name: string, makeStore: () => Layer.Layer<StorePorts | SqlClient.SqlClient, E>) => {
  describe(`the audit chain against a forger with database access: ${name}`, () => {
    it("an edited record re-linked with plain SHA-256 fails verification where it was edited", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          yield* appendRecords(4)
          yield* editAndRelink(2, (content) => {
            const { previous_hash, ...rest } = content
            return { hash: sha256Hex(`${previous_hash}\n${canonicalJson(rest)}`) }
          })
          expect(yield* verify).toMatchObject({ ok: false, count: 1, record: { seq: 2 } })
        })
      ))

    it("an edited record re-linked with HMAC under a guessed key fails verification", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          yield* appendRecords(4)
          yield* editAndRelink(3, (content) => ({
            hash: chainHash({ sha256Hex, chainMac: (input) => hmacHex("a guessed key", input) }, content)
          }))
          expect(yield* verify).toMatchObject({
            ok: false,
            record: { seq: 3 },
            reason: "its content does not match its hash"
          })
        })
      ))

    it("a tail rewritten to look like records of before the keyed chain fails verification", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          yield* appendRecords(4)
          yield* editAndRelink(3, (content) => ({ algorithm: "sha256", hash: legacyHash(content) }))
          expect(yield* verify).toMatchObject({
            ok: false,
            record: { seq: 3 },
            reason: expect.stringContaining("plain SHA-256 hash after keyed records")
          })
        })
      ))

    it("deleting the newest records passes a plain verify but not a verify against a checkpoint", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          yield* appendRecords(5)
          const audit = yield* Audit
          const checkpoint = yield* Effect.orDie(audit.checkpoint)
          expect(checkpoint).toMatchObject({
            count: 5,
            heads: [{ chain: 0, count: 5, last_hash: (yield* records)[4].hash }]
          })
          const sql = yield* SqlClient.SqlClient
          yield* Effect.orDie(sql`DELETE FROM audit_logs WHERE seq > 3`)
          expect(yield* audit.verify()).toMatchObject({ ok: true, count: 3 })
          expect(yield* audit.verify(checkpoint)).toMatchObject({
            ok: false,
            count: 3,
            reason: expect.stringContaining("records were removed")
          })
          // Writing new records does not help: they follow the deleted ones, which are missing.
          yield* appendRecords(3)
          expect(yield* audit.verify(checkpoint)).toMatchObject({
            ok: false,
            count: 3,
            record: { chain: 0, seq: 6 },
            reason: "expected record 4 of chain 0 here, found record 6"
          })
        })
      ))

    it("records of before the keyed chain still verify after the migration, and keyed records pin them", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          // The schema of before 0008, with two records written by the old rule (the later migrations but
          // 0014 touch no audit table, and stay: see `migrateAudit`).
          for (
            const statement of [
              "DROP TABLE audit_legacy_prefix",
              "DROP TABLE audit_chain_heads",
              "DROP INDEX audit_logs_organisation_time",
              "DROP INDEX audit_logs_unauthenticated_time",
              "ALTER TABLE audit_logs DROP CONSTRAINT audit_logs_pkey",
              "ALTER TABLE audit_logs DROP COLUMN chain",
              "ALTER TABLE audit_logs ADD PRIMARY KEY (seq)",
              "CREATE INDEX audit_logs_organisation_seq ON audit_logs (organisation_id, seq DESC)",
              "ALTER TABLE audit_logs DROP COLUMN hash_algorithm",
              "ALTER TABLE audit_logs DROP COLUMN sanitized",
              "ALTER TABLE audit_logs ALTER COLUMN organisation_id SET NOT NULL",
              "DELETE FROM effect_sql_migrations WHERE migration_id >= 8"
            ]
          ) yield* Effect.orDie(sql.unsafe(statement))
          let previous = "0".repeat(64)
          for (const seq of [1, 2]) {
            const content = {
              id: `old-${seq}`,
              chain: 0,
              seq,
              timestamp: `2025-06-0${seq}T10:00:00.000Z`,
              organisation_id: actor.organisationId,
              workspace_id: null,
              user_id: null,
              user_type: "api_key" as const,
              api_key_id: actor.keyId,
              action: "create",
              resource_type: "workspace",
              resource_id: `w${seq}`,
              method: "POST",
              uri: "/v1/workspaces",
              request_id: `r${seq}`,
              request_body: { name: `old ${seq}` },
              response_status_code: 201,
              client_ip: "127.0.0.1",
              workload_issuer: null,
              workload_subject: null,
              user_email: null,
              session_id: null,
              identity_provider: null,
              identity_subject: null,
              trace_id: null,
              sanitized: false,
              hash_algorithm: "sha256" as const,
              previous_hash: previous
            }
            const hash = legacyHash(content)
            yield* Effect.orDie(sql`INSERT INTO audit_logs (seq, id, timestamp, organisation_id, workspace_id, user_id,
            user_type, api_key_id, action, resource_type, resource_id, method, uri, request_id, request_body,
            response_status_code, client_ip, previous_hash, hash) VALUES (${seq}, ${content.id}, ${content.timestamp},
            ${content.organisation_id}, NULL, NULL, 'api_key', ${content.api_key_id}, 'create', 'workspace',
            ${content.resource_id}, 'POST', '/v1/workspaces', ${content.request_id},
            ${JSON.stringify(content.request_body)}::jsonb, 201, '127.0.0.1', ${previous}, ${hash})`)
            previous = hash
          }
          expect(yield* Effect.orDie(migrateAudit)).toEqual([
            [8, "audit_keyed_chain"],
            [14, "audit_chains"],
            [15, "audit_legacy_prefix"]
          ])
          // Until the gateway starts again, nothing keyed names the plain records: they could be anyone's.
          expect(yield* verify).toMatchObject({ ok: false, record: { chain: 0, seq: 1 } })
          // Its first start names them in one keyed record at the end of chain 0; later starts add nothing.
          expect(yield* afterRestart(verify)).toEqual({
            ok: true,
            count: 3,
            heads: [{ chain: 0, count: 3, last_hash: (yield* records)[2].hash }],
            legacy: 2
          })
          yield* afterRestart(Effect.void)
          expect((yield* records).map((r) => [r.hash_algorithm, r.action, r.request_body])).toEqual([
            ["sha256", "create", { name: "old 1" }],
            ["sha256", "create", { name: "old 2" }],
            ["hmac-sha256", LEGACY_SEAL_ACTION, { legacy_records: 2 }]
          ])

          yield* appendRecords(2)
          expect(yield* verify).toMatchObject({ ok: true, count: 5, legacy: 2 })
          // A forger who makes the store forget it sealed gets a second seal, which fails verification.
          yield* Effect.orDie(sql`UPDATE audit_legacy_prefix SET sealed = false`)
          yield* afterRestart(Effect.void)
          expect(yield* verify).toMatchObject({
            ok: false,
            count: 5,
            record: { chain: 0, seq: 6 },
            reason: "it is a second legacy seal: the gateway writes one, once"
          })
          // Re-linking an edited old record with the old rule is caught by the first keyed record.
          yield* editAndRelink(1, (content) => ({ hash: legacyHash(content) }))
          const relinked = yield* records
          yield* overwrite({ ...relinked[2], previous_hash: relinked[1].hash } as AuditRecord)
          expect(yield* verify).toMatchObject({ ok: false, record: { seq: 3 } })
        })
      ))

    it("chain 0 rewritten from its first record with plain SHA-256 fails verification", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          yield* appendRecords(4)
          yield* editAndRelink(1, (content) => ({ algorithm: "sha256", hash: legacyHash(content) }))
          expect((yield* records).every((r) => r.hash_algorithm === "sha256")).toBe(true)
          expect(yield* verify).toMatchObject({
            ok: false,
            count: 0,
            record: { chain: 0, seq: 1 },
            reason: expect.stringContaining("no keyed record names them")
          })
          // A restart names nothing: the store was created after the keyed chain, and said so at creation.
          expect(yield* afterRestart(verify)).toMatchObject({ ok: false, record: { chain: 0, seq: 1 } })
          expect((yield* records).some((r) => r.action === LEGACY_SEAL_ACTION)).toBe(false)
        })
      ))

    it("a forger who resets the store's note of the seal cannot raise the allowed count", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* appendRecords(3)
          // The note says 2 plain records were never named; the next start names 2 in a keyed record, but
          // chain 0 starts with none, and rewriting its first two records breaks the third's link.
          yield* Effect.orDie(sql`UPDATE audit_legacy_prefix SET plain_records = 2, sealed = false`)
          yield* afterRestart(Effect.void)
          expect(yield* verify).toMatchObject({
            ok: false,
            record: { chain: 0, seq: 4 },
            reason: expect.stringContaining("it names 2 records of before the keyed chain, but chain 0 starts with 0")
          })
          yield* editAndRelink(1, (content) => ({ algorithm: "sha256", hash: legacyHash(content) }))
          expect(yield* verify).toMatchObject({ ok: false })
        })
      ))

    it("a record moved to another chain, as the first of its own, fails verification there", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          yield* appendRecords(3)
          const sql = yield* SqlClient.SqlClient
          yield* Effect.orDie(sql`UPDATE audit_logs SET chain = 1, seq = 1, previous_hash = ${GENESIS_HASH}
                                  WHERE chain = 0 AND seq = 3`)
          expect(yield* verify).toMatchObject({
            ok: false,
            count: 2,
            record: { chain: 1, seq: 1 },
            reason: "its content does not match its hash"
          })
        })
      ))

    it("a chain made up with plain SHA-256 hashes fails verification", () =>
      withStore(
        makeStore,
        Effect.gen(function*() {
          const [first] = yield* appendRecords(2).pipe(Effect.andThen(records))
          const { hash: _hash, ...content } = first!
          const madeUp = { ...content, id: "made-up", chain: 2, seq: 1, hash_algorithm: "sha256" as const }
          yield* insertForged(madeUp, legacyHash({ ...madeUp, previous_hash: GENESIS_HASH }))
          expect(yield* verify).toMatchObject({
            ok: false,
            record: { chain: 2, seq: 1 },
            reason: expect.stringContaining("plain SHA-256 hash after keyed records or chains")
          })
        })
      ))
  })
}

/** Inserts `content` with the given hash as a record of its own (a forger's insert). */
const insertForged = (content: Omit<AuditRecord, "hash">, hash: string) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) =>
      Effect.orDie(sql`INSERT INTO audit_logs (chain, seq, id, timestamp, organisation_id, workspace_id, user_id,
        user_type, api_key_id, action, resource_type, resource_id, method, uri, request_id, request_body,
        response_status_code, client_ip, sanitized, hash_algorithm, previous_hash, hash)
        VALUES (${content.chain}, ${content.seq}, ${content.id}, ${content.timestamp}, ${content.organisation_id},
        ${content.workspace_id}, ${content.user_id}, ${content.user_type}, ${content.api_key_id}, ${content.action},
        ${content.resource_type}, ${content.resource_id}, ${content.method}, ${content.uri}, ${content.request_id},
        ${JSON.stringify(content.request_body)}::jsonb, ${content.response_status_code}, ${content.client_ip},
        ${content.sanitized}, ${content.hash_algorithm}, ${GENESIS_HASH}, ${hash})`)
  )

tamperSuite("PGlite", pgliteFromSnapshot)
if (postgresUrl !== undefined) {
  const url = postgresUrl
  tamperSuite("PostgreSQL", () => postgresInFreshSchema(url))
}
