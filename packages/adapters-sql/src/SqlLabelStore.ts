/**
 * Labels on `effect/sql`. A name is unique at its level: partial unique indexes, one for a workspace's
 * labels and one for the organisation's own.
 */
import { Label, LabelStore } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { likePattern, queriesOn } from "./internal/queries.ts"
import { timestamps } from "./internal/rows.ts"
import { read, write } from "./internal/statements.ts"

const LabelRow = Label.mapFields((f) => ({ ...f, ...timestamps })).pipe(Schema.decodeTo(Label))

export const makeLabelStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { byId, listing } = queriesOn(sql)

  const withName = SqlSchema.findAll({
    Request: Schema.Struct({ organisationId: Schema.String, name: Schema.String }),
    Result: LabelRow,
    execute: ({ name, organisationId }) =>
      sql`SELECT * FROM labels WHERE organisation_id = ${organisationId} AND name = ${name}`
  })

  return LabelStore.of({
    insert: (l) =>
      write(sql`INSERT INTO labels (id, organisation_id, workspace_id, name, description, color_code, created_at,
                                    last_updated_at)
                VALUES (${l.id}, ${l.organisation_id}, ${l.workspace_id}, ${l.name}, ${l.description}, ${l.color_code},
                        ${l.created_at}, ${l.last_updated_at})`),
    update: (l) =>
      Effect.map(
        write(sql`UPDATE labels SET name = ${l.name}, description = ${l.description}, color_code = ${l.color_code},
                    last_updated_at = ${l.last_updated_at}
                  WHERE id = ${l.id} RETURNING id`),
        (rows) => rows.length > 0
      ),
    get: byId("labels", LabelRow),
    withName: (organisationId, name) => read(withName({ organisationId, name })),
    // A workspace has its own labels and its organisation's.
    list: (organisationId, workspaceId, page, search) =>
      listing(
        LabelRow,
        "labels",
        sql.and([
          sql`organisation_id = ${organisationId}`,
          ...(workspaceId === null ? [] : [sql`(workspace_id IS NULL OR workspace_id = ${workspaceId})`]),
          ...(search === undefined ? [] : [sql`name ILIKE ${likePattern(search)}`])
        ]),
        page
      ),
    delete: (id) => read(Effect.map(sql`DELETE FROM labels WHERE id = ${id} RETURNING id`, (rows) => rows.length > 0))
  })
})
