/**
 * An `effect/sql` client on PGlite: PostgreSQL compiled to WebAssembly, in-process, no server.
 *
 * PGlite has a single session. Every statement, and every whole transaction, holds a one-holder lock,
 * so a concurrent fiber can never run inside another fiber's transaction and see its uncommitted rows. The lock
 * serves a request's statement before any background work's (`BackgroundWork`; internal/PriorityLock.ts).
 *
 * PGlite runs on the thread that serves requests, and its `query` continues through promises alone, so
 * statements that follow one another run in one turn of the event loop: no socket is read until the chain ends.
 * A rotation sweep's transaction (six statements, two audit appends) held the loop for 9–20 ms at a time, a
 * health check's status write with the next page's read for 7–11 ms, and a render's first resolution of a
 * prompt (five reads) for 12 ms, while renders that needed no statement waited to be read. So every statement
 * starts on a turn of its own (`Effect.yieldNow`, a macrotask in Node): requests that came meanwhile are read
 * and answered between statements, and what holds them up is one statement at a time. And each statement is
 * short: a text with parameters is parsed once and each execution is one call (internal/pgliteStatements.ts).
 */
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { PGlite, types } from "@electric-sql/pglite"
import { Context, Effect, Layer, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import { SqlError, UniqueViolation, UnknownError } from "effect/sql/SqlError"
import {
  PGLITE_MAINTENANCE_FIRST_MS,
  PGLITE_MAINTENANCE_INTERVAL_MS,
  runMaintenance
} from "./internal/pgliteMaintenance.ts"
import { makePgliteStatements, type RowMode } from "./internal/pgliteStatements.ts"
import { makePoolMetrics } from "./internal/poolMetrics.ts"
import { makePriorityLock } from "./internal/PriorityLock.ts"
import { migrate } from "./Migrations.ts"
import { defaultTemplateCacheDirs, initialiseDataDir } from "./PgliteTemplate.ts"

export interface PgliteClientOptions {
  /** A directory for the data files; in memory when absent. */
  readonly dataDir?: string | undefined
  /** A `dumpDataDir()` snapshot to start from, instead of running initdb. */
  readonly loadDataDir?: Blob | undefined
  /**
   * Where a new `dataDir` finds its template (PgliteTemplate.ts), in order; the installation's cache folders
   * when absent; none (initdb in place) when empty.
   */
  readonly templateCacheDirs?: ReadonlyArray<string> | undefined
  /**
   * The fiber reference that marks background work (the domain's `BackgroundWork`), whose statements wait for
   * every request's; without it, all statements are served in order. An option rather than an import, so this
   * module loads without the domain (the test setup builds its snapshot with it).
   */
  readonly backgroundWork?: Context.Reference<boolean> | undefined
  /**
   * How often tables are vacuumed and analysed (internal/pgliteMaintenance.ts: PGlite has no autovacuum), and
   * when first; hourly, ten minutes after opening, when absent; never when `intervalMs` is 0.
   */
  readonly maintenance?: { readonly firstMs: number; readonly intervalMs: number } | undefined
}

/**
 * PostgreSQL's settings for a control plane's database, not an analytics one. PGlite starts with
 * PostgreSQL's defaults (128 MB of shared buffers, 100 connections), whose shared memory it touches whole
 * as it starts: ~100 MB of resident memory. A control plane's whole database is a few megabytes, PGlite
 * reads its files through the operating system's page cache anyway, and it has one session.
 */
const CONTROL_PLANE_SETTINGS = [
  ...["-c", "shared_buffers=8MB", "-c", "temp_buffers=2MB"],
  ...["-c", "max_connections=5", "-c", "superuser_reserved_connections=0"]
]

export class Pglite extends Context.Service<Pglite, PGlite>()("@gateway-control/adapters-sql/Pglite") {}

const toSqlError = (operation: string) => (cause: unknown): SqlError => {
  const error = cause as { readonly code?: string; readonly constraint?: string; readonly message?: string }
  const props = { cause, message: error?.message ?? String(cause), operation }
  return new SqlError({
    reason: error?.code === "23505"
      ? new UniqueViolation({ ...props, constraint: error.constraint ?? "unknown" })
      : new UnknownError(props)
  })
}

// Timestamps come back as their text; the row schemas turn them into ISO 8601. Keeping int8 as text
// matches @effect/sql-pg, so one set of row schemas serves both clients.
const parsers = {
  [types.TIMESTAMPTZ]: (value: string) => value,
  [types.TIMESTAMP]: (value: string) => value,
  [types.INT8]: (value: string) => value
}

/** A statement, started on a turn of the event loop of its own (see above). */
const statement = <A>(operation: string, run: () => Promise<A>): Effect.Effect<A, SqlError> =>
  Effect.andThen(Effect.yieldNow, Effect.tryPromise({ try: run, catch: toSqlError(operation) }))

const makeConnection = (db: PGlite): Connection => {
  // Texts with parameters parsed once, each execution one call (internal/pgliteStatements.ts).
  const statements = makePgliteStatements(db, parsers)
  const query = (sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode) =>
    statement("execute", () => statements.run(sql, params, rowMode))
  // A text built for one use (`unprepared`) is not kept: PGlite's own `query`, or one simple query.
  const unprepared = (sql: string, params: ReadonlyArray<unknown>, rowMode: RowMode) =>
    params.length === 0
      ? query(sql, params, rowMode)
      : statement("execute", () => db.query<any>(sql, params as Array<unknown>, { rowMode, parsers }))
  const rowsOf =
    (run: typeof query) =>
    (sql: string, params: ReadonlyArray<unknown>, transform?: (rows: ReadonlyArray<any>) => any) =>
      Effect.map(run(sql, params, "object"), (result) => (transform ? transform(result.rows) : result.rows))
  const valuesOf = (run: typeof query) => (sql: string, params: ReadonlyArray<unknown>) =>
    Effect.map(run(sql, params, "array"), (result) => result.rows as ReadonlyArray<ReadonlyArray<unknown>>)
  const rows = rowsOf(query)
  return {
    execute: rows,
    executeUnprepared: rowsOf(unprepared),
    executeRaw: (sql, params) =>
      params.length === 0
        ? statement("executeRaw", () => db.exec(sql))
        : query(sql, params, "object"),
    executeValues: valuesOf(query),
    executeValuesUnprepared: valuesOf(unprepared),
    executeStream: (sql, params, transform) =>
      Stream.flatMap(Stream.fromEffect(rows(sql, params, transform)), (all) => Stream.fromIterable(all))
  }
}

export const make = Effect.fnUntraced(function*(options: PgliteClientOptions = {}) {
  if (options.dataDir !== undefined && options.loadDataDir === undefined) {
    yield* initialiseDataDir(options.dataDir, options.templateCacheDirs ?? defaultTemplateCacheDirs(), buildTemplate)
  }
  const db = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () =>
        PGlite.create(options.dataDir, {
          startParams: [...PGlite.defaultStartParams, ...CONTROL_PLANE_SETTINGS],
          ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {})
        }),
      catch: toSqlError("open")
    }),
    (db) => Effect.promise(() => db.close())
  )
  const lock = makePriorityLock()
  const connection = makeConnection(db)
  // One holder at a time, requests first: see PriorityLock.ts for why background work goes last.
  const backgroundWork = options.backgroundWork
  const take = backgroundWork === undefined
    ? Effect.as(lock.take(false), connection)
    : backgroundWork.use((background) => Effect.as(lock.take(background), connection))
  // Its one session as a pool of one: statements queued for the lock, and how long they waited (poolMetrics.ts).
  const metered = makePoolMetrics("pglite", 1, yield* Effect.context<never>())
  metered.setOpen(1)
  const acquirer = metered.checkout(take)
  const client = yield* SqlClient.make({
    acquirer,
    transactionAcquirer: acquirer,
    compiler: makeCompiler(),
    driver: "pglite",
    spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", "pglite"]]
  })
  const maintenance = options.maintenance ??
    { firstMs: PGLITE_MAINTENANCE_FIRST_MS, intervalMs: PGLITE_MAINTENANCE_INTERVAL_MS }
  if (maintenance.intervalMs > 0) yield* runMaintenance(client, { backgroundWork, ...maintenance })
  return { client, db, lock }
})

/** A template for new data directories: initdb and every migration, at `dataDir`, closed again. */
function buildTemplate(dataDir: string): Effect.Effect<void, unknown> {
  return make({ dataDir, templateCacheDirs: [], maintenance: { firstMs: 0, intervalMs: 0 } }).pipe(
    Effect.flatMap(({ client }) => Effect.provideService(migrate, SqlClient.SqlClient, client)),
    Effect.scoped,
    Effect.provide(Reactivity.layer)
  )
}

/** `SqlClient` on PGlite, and the PGlite instance itself (for snapshots). */
export const layer = (options: PgliteClientOptions = {}): Layer.Layer<SqlClient.SqlClient | Pglite, SqlError> =>
  Layer.effectContext(
    Effect.map(
      make(options),
      ({ client, db }) => Context.make(SqlClient.SqlClient, client).pipe(Context.add(Pglite, db))
    )
  ).pipe(Layer.provide(Reactivity.layer))
