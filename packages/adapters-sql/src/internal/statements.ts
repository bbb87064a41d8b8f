/** Shared by the SQL stores: row decoding helpers and how write failures become domain errors. */
import { Conflict, type Page } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { SqlError } from "effect/sql/SqlError"
import { int } from "./rows.ts"

export type Row = Record<string, unknown>

/** Messages for the uniqueness rules, by constraint name. */
const conflicts: Record<string, { readonly message: string; readonly param: string | null }> = {
  workspaces_slug_unique: { message: "A workspace with this slug already exists in the organisation.", param: "slug" },
  users_email_unique: { message: "A user with this email already exists in the organisation.", param: "email" },
  api_keys_digest_unique: { message: "An API key with this digest already exists.", param: null },
  prompts_slug_unique: { message: "A prompt with this slug already exists in the workspace.", param: "slug" },
  prompt_partials_slug_unique: { message: "A partial with this slug already exists in the workspace.", param: "slug" },
  prompt_versions_number_unique: {
    message: "Another request created this version at the same time; retry.",
    param: null
  },
  mcp_integrations_slug_unique: {
    message: "An MCP integration with this slug already exists in the organisation.",
    param: "slug"
  },
  virtual_keys_slug_unique: { message: "A virtual key with this slug already exists in the workspace.", param: "slug" },
  configs_slug_unique: { message: "A config with this slug already exists in the workspace.", param: "slug" },
  mcp_servers_slug_unique: { message: "An MCP server with this slug already exists in the workspace.", param: "slug" },
  prompt_partial_versions_number_unique: {
    message: "Another request created this version at the same time; retry.",
    param: null
  }
}

/** Runs a write: a unique violation becomes `Conflict`, other SQL errors become defects. */
export const write = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, Conflict> =>
  Effect.catch(effect, (error) => {
    if (error.reason._tag === "UniqueViolation") {
      const known = conflicts[error.reason.constraint]
      return Effect.fail(
        new Conflict({
          message: known?.message ?? "This would duplicate an existing record.",
          param: known?.param ?? null
        })
      )
    }
    return Effect.die(error)
  })

export const first = <A>(rows: ReadonlyArray<Row>, decode: (row: Row) => A): Option.Option<A> =>
  rows.length === 0 ? Option.none() : Option.some(decode(rows[0]))

/** Items and the total from a query that selects `count(*) OVER () AS total_count`. */
export const toPage = <A>(rows: ReadonlyArray<Row>, decode: (row: Row) => A): Page<A> => ({
  items: rows.map(decode),
  total: rows.length === 0 ? 0 : int(rows[0].total_count)
})
