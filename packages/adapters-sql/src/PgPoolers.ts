/**
 * A connection pooler between the gateway and PostgreSQL (PgBouncer, …), detected at start, and the modes the
 * gateway refuses, with the reason.
 *
 * What is detected, on one connection opened as the pool opens them:
 * - **a pooler**: the process id the server announced in `BackendKeyData` is not `pg_backend_pid()` (a pooler
 *   announces its own, for cancel requests it forwards), or the server refused a startup parameter
 *   (`unsupported startup parameter: statement_timeout`, PgBouncer's answer to parameters it does not track);
 * - **statement pooling**: a transaction of two statements (`BEGIN`, `SELECT 1`, `COMMIT`) is refused. The
 *   gateway's units of work are transactions: refused at start;
 * - **transaction pooling**, only where it matters (the change feed's `LISTEN`, which needs a session): a
 *   second connection is given the server process the first one just left, while the first is still open.
 *   Session pooling never does that.
 *
 * Behind a pooler, statements run unnamed (no prepared statements: a transaction-mode pooler hands the next
 * transaction to any server, where a name prepared elsewhere does not exist), and the statement timeout is not
 * sent as a startup parameter when the pooler refuses it: set it on the role (`ALTER ROLE … SET
 * statement_timeout`) or PgBouncer's `query_timeout`; the client-side deadline (internal/deadlineSocket.ts)
 * still applies.
 */
import { PgConnection } from "@effect/sql-pg"
import { Data, Effect } from "effect"
import type { SqlError } from "effect/sql/SqlError"

/** A pooler mode the gateway cannot work with; the message says which and what to do. */
export class PoolerRefused extends Data.TaggedError("PoolerRefused")<{ readonly message: string }> {}

export interface ConnectionFacts {
  /** A pooler sits between the gateway and PostgreSQL. */
  readonly pooler: boolean
  /** The pooler refused a startup parameter: connections send none but the driver's own. */
  readonly startupRefused: boolean
  /** The server's own `statement_timeout`, in ms, as a session behind the pooler sees it. */
  readonly serverStatementTimeoutMs: number
}

const refusedStartupParameter = (error: SqlError): boolean => /unsupported startup parameter/i.test(errorText(error))

const errorText = (error: SqlError): string => {
  const cause = error.reason.cause
  return `${error.message} ${cause instanceof Error ? cause.message : ""}`
}

const backendPid = (connection: PgConnection.PgConnection) =>
  Effect.map(
    connection.query("SELECT pg_backend_pid() AS pid", [], false),
    (result) => Number(result.rows[0]?.pid)
  )

/**
 * Inspects what `config` connects to (see the module's comment). `setting` names the URL in messages;
 * `forListen`: the connection will `LISTEN`, so transaction pooling is refused too.
 */
export const inspectConnections = (
  config: PgConnection.Config,
  setting: string,
  forListen: boolean
): Effect.Effect<ConnectionFacts, SqlError | PoolerRefused> =>
  Effect.scoped(Effect.gen(function*() {
    let startupParameters: Readonly<Record<string, string>> = config.startupParameters ?? {}
    let refused = false
    const open = () => PgConnection.make({ ...config, startupParameters, prepare: false })
    const connection = yield* open().pipe(
      Effect.catchIf(refusedStartupParameter, () => {
        refused = true
        startupParameters = {}
        return open()
      })
    )
    const pid = yield* backendPid(connection)
    const pooler = refused || pid !== connection.processId
    const timeout = yield* connection.query(
      "SELECT setting FROM pg_settings WHERE name = 'statement_timeout'",
      [],
      false
    )
    const serverStatementTimeoutMs = Number(timeout.rows[0]?.setting ?? 0)
    if (!pooler) return { pooler, startupRefused: refused, serverStatementTimeoutMs }

    const transaction = yield* Effect.result(Effect.gen(function*() {
      yield* connection.query("BEGIN", [], false)
      yield* connection.query("SELECT 1", [], false)
      yield* connection.query("COMMIT", [], false)
    }))
    if (transaction._tag === "Failure") {
      return yield* new PoolerRefused({
        message: `${setting} leads to a connection pooler that refuses transactions (statement pooling: ` +
          `"${
            transaction.failure.reason.cause instanceof Error
              ? transaction.failure.reason.cause.message
              : transaction.failure.message
          }"). ` +
          "The gateway runs every change in a transaction: use transaction or session pooling " +
          "(PgBouncer: pool_mode = transaction)."
      })
    }
    if (forListen) {
      // The first connection has left its server process (no transaction open); under transaction pooling
      // the next connection is given that very process (PgBouncer reuses the most recent one first).
      const second = yield* open()
      if ((yield* backendPid(second)) === pid) {
        return yield* new PoolerRefused({
          message: `${setting} leads to a connection pooler in transaction mode, where the change feed's LISTEN ` +
            "hears nothing: set DATABASE_LISTEN_URL to PostgreSQL itself (or to a session-mode pool)."
        })
      }
    }
    return { pooler, startupRefused: refused, serverStatementTimeoutMs }
  }))
