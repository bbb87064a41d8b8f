/**
 * Integrations' credential health on `effect/sql`: one row per integration, replaced by each check, gone with the
 * integration (`ON DELETE CASCADE`).
 */
import { CredentialHealth, CredentialHealthStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { Timestamp } from "./internal/rows.ts"
import { read } from "./internal/statements.ts"

const HealthRow = CredentialHealth.mapFields((f) => ({
  ...f,
  checked_at: Timestamp,
  last_success_at: Schema.NullOr(Timestamp),
  last_failure_at: Schema.NullOr(Timestamp)
})).pipe(Schema.decodeTo(CredentialHealth))

export const makeCredentialHealthStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const find = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: HealthRow,
    execute: (id) => sql`SELECT * FROM integration_credential_health WHERE integration_id = ${id}`
  })
  const findMany = SqlSchema.findAll({
    Request: Schema.Array(Schema.String),
    Result: HealthRow,
    execute: (ids) => sql`SELECT * FROM integration_credential_health WHERE integration_id IN ${sql.in(ids)}`
  })
  return CredentialHealthStore.of({
    put: (h) =>
      Effect.asVoid(read(sql`
        INSERT INTO integration_credential_health (integration_id, status, status_message, checked_at,
          last_success_at, last_failure_at)
        SELECT ${h.integration_id}, ${h.status}, ${h.status_message}, ${h.checked_at}, ${h.last_success_at},
          ${h.last_failure_at}
        WHERE EXISTS (SELECT 1 FROM integrations WHERE id = ${h.integration_id})
        ON CONFLICT (integration_id) DO UPDATE SET status = excluded.status,
          status_message = excluded.status_message, checked_at = excluded.checked_at,
          last_success_at = excluded.last_success_at, last_failure_at = excluded.last_failure_at`)),
    get: (integrationId) => read(find(integrationId)),
    // One statement for a whole page of a list: no read per row.
    getMany: (ids) =>
      ids.length === 0
        ? Effect.succeed(new Map())
        : Effect.map(read(findMany(ids)), (rows) => new Map(rows.map((h) => [h.integration_id, h])))
  })
})
