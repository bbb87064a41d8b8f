/** Shared by the SQL stores: how failures become domain errors or defects, and how pages are read. */
import { Conflict, type Page, type PageRequest, StoreError } from "@gateway-control/domain"
import { Effect, Schema } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"
import { Int } from "./rows.ts"

/** Messages for the uniqueness rules, by constraint name. */
const conflicts: Record<string, { readonly message: string; readonly param: string | null }> = {
  workspaces_slug_unique: { message: "A workspace with this slug already exists in the organisation.", param: "slug" },
  identity_providers_slug_unique: { message: "An identity provider with this slug already exists.", param: "slug" },
  users_email_unique: { message: "A user with this email already exists in the organisation.", param: "email" },
  api_keys_digest_unique: { message: "An API key with this digest already exists.", param: null },
  prompts_slug_unique: { message: "A prompt with this slug already exists in the workspace.", param: "slug" },
  prompt_partials_slug_unique: { message: "A partial with this slug already exists in the workspace.", param: "slug" },
  prompt_versions_number_unique: {
    message: "Another request created this version at the same time; retry.",
    param: null
  },
  providers_slug_unique: {
    message: "A provider (or virtual key) with this slug already exists in the workspace.",
    param: "slug"
  },
  integrations_slug_unique: {
    message: "An integration with this slug already exists in the organisation.",
    param: "slug"
  },
  mcp_integrations_slug_unique: {
    message: "An MCP integration with this slug already exists in the organisation.",
    param: "slug"
  },
  collections_slug_unique: { message: "A collection with this slug already exists in the workspace.", param: "slug" },
  collections_one_default: { message: "Another request made this workspace's default collection; retry.", param: null },
  config_versions_number_unique: {
    message: "Another request changed this config at the same time; retry.",
    param: null
  },
  configs_slug_unique: { message: "A config with this slug already exists in the workspace.", param: "slug" },
  mcp_servers_slug_unique: { message: "An MCP server with this slug already exists in the workspace.", param: "slug" },
  labels_workspace_name_unique: { message: "A label with this name already exists in the workspace.", param: "name" },
  labels_organisation_name_unique: {
    message: "An organisation label with this name already exists.",
    param: "name"
  },
  scim_groups_name_unique: { message: "A group with this displayName already exists.", param: "displayName" },
  prompt_partial_versions_number_unique: {
    message: "Another request created this version at the same time; retry.",
    param: null
  }
}

/**
 * PostgreSQL's SQLSTATEs for a server that is shutting down or not yet accepting work (class 57: 57P01
 * admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now); the driver files them as `UnknownError`.
 */
const SHUTTING_DOWN = /^57P0[123]$/

/**
 * 25006 read_only_sql_transaction: a write reached a server that takes none, which for the gateway's own
 * connections means a primary demoted, or a standby reached, during a failover; the host locator moves on
 * (PgHosts.ts), and meanwhile the store is unavailable for writes.
 */
const READ_ONLY = "25006"

const sqlStateOf = (error: SqlError): unknown => {
  const cause = error.reason.cause
  return typeof cause === "object" && cause !== null ? Reflect.get(cause, "code") : undefined
}

/**
 * What a SQL failure means to the domain: `StoreError` when the store could not answer (the connection failed,
 * was lost or timed out, the server is going down, a statement or lock waited too long) or gave the unit of work
 * up for a concurrent one; `undefined` for a failure that is the adapter's bug (bad SQL, a broken constraint
 * other than uniqueness, a failed authentication: configuration), which stays a defect.
 */
export const storeErrorOf = (error: SqlError): StoreError | undefined => {
  switch (error.reason._tag) {
    case "ConnectionError":
    case "StatementTimeoutError":
    case "LockTimeoutError":
      return StoreError.unavailable(`The store did not answer: ${error.message}`)
    case "DeadlockError":
    case "SerializationError":
      return StoreError.contention(`The store gave this change up for a concurrent one: ${error.message}`)
    case "UnknownError": {
      const state = sqlStateOf(error)
      return typeof state === "string" && SHUTTING_DOWN.test(state)
        ? StoreError.unavailable(`The store is shutting down or starting: ${error.message}`)
        : state === READ_ONLY
        ? StoreError.unavailable(`The store takes no writes now (a failover?): ${error.message}`)
        : undefined
    }
    default:
      return undefined
  }
}

/**
 * Any failure: a `StoreError` already made, or a SQL failure the store's state explains, fails as `StoreError`;
 * every other one is a defect.
 */
export const failOrDie = (error: unknown): Effect.Effect<never, StoreError> => {
  const storeError = error instanceof StoreError ? error : isSqlError(error) ? storeErrorOf(error) : undefined
  return storeError === undefined ? Effect.die(error) : Effect.fail(storeError)
}

/** A failure of a unit of work: its BEGIN/COMMIT's `SqlError` as `failOrDie` says, the work's own `E` as it is. */
export const transactionFailure = <E>(error: E | SqlError): Effect.Effect<never, E | StoreError> =>
  isSqlError(error) ? failOrDie(error) : Effect.fail(error)

/**
 * Runs a write: a unique violation becomes `Conflict`, an unreachable store `StoreError`, other SQL errors
 * defects.
 */
export const write = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, Conflict | StoreError> =>
  Effect.catch(effect, (error): Effect.Effect<never, Conflict | StoreError> => {
    if (error.reason._tag === "UniqueViolation") {
      const known = conflicts[error.reason.constraint]
      return Effect.fail(
        new Conflict({
          message: known?.message ?? "This would duplicate an existing record.",
          param: known?.param ?? null
        })
      )
    }
    return failOrDie(error)
  })

/**
 * Runs a read: an unreachable store is `StoreError`; any other SQL failure, or a row that does not decode as the
 * domain's model, is a defect at the adapter's edge (the schema is the migrations' business, not the caller's).
 */
export const read = <A, E extends SqlError | Schema.SchemaError>(
  effect: Effect.Effect<A, E>
): Effect.Effect<A, StoreError> => Effect.catch(effect, failOrDie)

const TotalCount = Schema.Struct({ total_count: Int })
const Count = Schema.Struct({ n: Int })

/** The number from a `SELECT count(*) AS n` query. */
export const countOf = (rows: Effect.Effect<ReadonlyArray<unknown>, SqlError>): Effect.Effect<number, StoreError> =>
  read(Effect.map(Effect.flatMap(rows, (r) => Schema.decodeUnknownEffect(Count)(r[0])), (c) => c.n))

/**
 * A page from a query that selects `count(*) OVER () AS total_count` with its rows, decoded with `Result`.
 * A page past the end has no row to carry the total, so `count` counts the matching rows then.
 */
export const pageOf = <S extends Schema.Decoder<unknown>>(
  Result: S,
  rows: Effect.Effect<ReadonlyArray<unknown>, SqlError>,
  request: PageRequest,
  count: Effect.Effect<ReadonlyArray<unknown>, SqlError>
): Effect.Effect<Page<S["Type"]>, StoreError> =>
  Effect.catch(
    Effect.gen(function*() {
      const found = yield* rows
      const items = yield* Schema.decodeUnknownEffect(Schema.Array(Result))(found)
      if (found.length > 0) {
        return { items, total: (yield* Schema.decodeUnknownEffect(TotalCount)(found[0])).total_count }
      }
      if (request.offset === 0) return { items, total: 0 }
      return { items, total: yield* countOf(count) }
    }),
    failOrDie
  )
