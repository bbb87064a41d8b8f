/**
 * The query shapes every SQL store repeats: one row by id, one row by two columns unique together (a slug within
 * its scope, a workspace's member), and one page of a table's rows with their total. Tables and columns come from
 * the stores, never from a request.
 */
import type { PageRequest, StoreError } from "@gateway-control/domain"
import type { Effect, Option } from "effect"
import { Schema } from "effect"
import type * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import type { Fragment } from "effect/sql/Statement"
import { pageOf, read } from "./statements.ts"

/** A substring search for `ILIKE`: `%` and `_` match themselves. */
export const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

export const queriesOn = (sql: SqlClient.SqlClient) => {
  /** `SELECT * FROM table WHERE id = ?`, decoded with `Result`. */
  const byId = <S extends Schema.Decoder<unknown>>(table: string, Result: S) => {
    const find = SqlSchema.findOneOption({
      Request: Schema.String,
      Result,
      execute: (id) => sql`SELECT * FROM ${sql(table)} WHERE id = ${id}`
    })
    return (id: string): Effect.Effect<Option.Option<S["Type"]>, StoreError> => read(find(id))
  }

  /** One row by two columns that are unique together, such as a workspace and a user. */
  const byPair = <S extends Schema.Decoder<unknown>>(table: string, first: string, second: string, Result: S) => {
    const find = SqlSchema.findOneOption({
      Request: Schema.Struct({ a: Schema.String, b: Schema.String }),
      Result,
      execute: ({ a, b }) => sql`SELECT * FROM ${sql(table)} WHERE ${sql(first)} = ${a} AND ${sql(second)} = ${b}`
    })
    return (a: string, b: string): Effect.Effect<Option.Option<S["Type"]>, StoreError> => read(find({ a, b }))
  }

  /** One row by its slug, unique within `scope` (the column of the organisation or workspace holding it). */
  const bySlug = <S extends Schema.Decoder<unknown>>(table: string, scope: string, Result: S) =>
    byPair(table, scope, "slug", Result)

  /** The rows of any of the organisation's workspaces with this slug (unique per workspace only). */
  const allBySlug = <S extends Schema.Decoder<unknown>>(table: string, Result: S) => {
    const find = SqlSchema.findAll({
      Request: Schema.Struct({ organisationId: Schema.String, slug: Schema.String }),
      Result,
      execute: ({ organisationId, slug }) =>
        sql`SELECT * FROM ${sql(table)} WHERE organisation_id = ${organisationId} AND slug = ${slug}`
    })
    return (organisationId: string, slug: string): Effect.Effect<ReadonlyArray<S["Type"]>, StoreError> =>
      read(find({ organisationId, slug }))
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

  return { allBySlug, byId, byPair, bySlug, inScope, listing }
}
