/**
 * The query shapes every SQL store repeats: one row by id, one row by slug within its scope, and one page of a
 * table's rows with their total. Tables and columns come from the stores, never from a request.
 */
import type { PageRequest } from "@gateway-control/domain"
import type { Effect, Option } from "effect"
import { Schema } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import type { Fragment } from "effect/sql/Statement"
import { pageOf, read } from "./statements.ts"

export const queriesOn = (sql: SqlClient.SqlClient) => {
  /** `SELECT * FROM table WHERE id = ?`, decoded with `Result`. */
  const byId = <S extends Schema.Decoder<unknown>>(table: string, Result: S) => {
    const find = SqlSchema.findOneOption({
      Request: Schema.String,
      Result,
      execute: (id) => sql`SELECT * FROM ${sql(table)} WHERE id = ${id}`
    })
    return (id: string): Effect.Effect<Option.Option<S["Type"]>> => read(find(id))
  }

  /** One row by its slug, unique within `scope` (the column of the organisation or workspace holding it). */
  const bySlug = <S extends Schema.Decoder<unknown>>(table: string, scope: string, Result: S) => {
    const find = SqlSchema.findOneOption({
      Request: Schema.Struct({ scopeId: Schema.String, slug: Schema.String }),
      Result,
      execute: ({ scopeId, slug }) =>
        sql`SELECT * FROM ${sql(table)} WHERE ${sql(scope)} = ${scopeId} AND slug = ${slug}`
    })
    return (scopeId: string, slug: string): Effect.Effect<Option.Option<S["Type"]>> => read(find({ scopeId, slug }))
  }

  /** An organisation's rows, or one workspace's when a workspace is named. */
  const inScope = (organisationId: string, workspaceId: string | null) =>
    workspaceId === null
      ? sql`organisation_id = ${organisationId}`
      : sql`organisation_id = ${organisationId} AND workspace_id = ${workspaceId}`

  /**
   * One page of `table`'s rows matching `where`, oldest first (`tiebreak` orders rows created together), and the
   * number of all matching rows.
   */
  const listing = <S extends Schema.Decoder<unknown>>(
    Result: S,
    table: string,
    where: Fragment,
    page: PageRequest,
    tiebreak = "id"
  ) =>
    pageOf(
      Result,
      sql`SELECT *, count(*) OVER () AS total_count FROM ${sql(table)} WHERE ${where}
          ORDER BY created_at, ${sql(tiebreak)} LIMIT ${page.limit} OFFSET ${page.offset}`,
      page,
      sql`SELECT count(*) AS n FROM ${sql(table)} WHERE ${where}`
    )

  return { byId, bySlug, inScope, listing }
}
