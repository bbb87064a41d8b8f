/**
 * The change feed on PostgreSQL, between two feeds on one database as between two processes: a committed
 * change reaches the other, a rolled-back one reaches nobody, nobody hears its own, and a feed whose listening
 * connection is killed says so, listens again and tells its subscribers to resync.
 */
import { PgClient } from "@effect/sql-pg"
import { type ChangeEvent, ChangeFeed } from "@gateway-control/domain"
import { Effect, Layer, Logger, ManagedRuntime, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import { describe, expect, it } from "vitest"
import { layerPgChangeFeed } from "../src/PgChangeFeed.ts"
import { postgresUrl } from "./support/Stores.ts"

/** One "process": a client and a feed on the database, with what its subscriber heard and what it logged. */
const makeProcess = (url: string) => {
  const heard: Array<ChangeEvent> = []
  const logged: Array<string> = []
  const logger = Logger.make(({ message }) => void logged.push(String(Array.isArray(message) ? message[0] : message)))
  const client = PgClient.layer({ url: Redacted.make(url), maxConnections: 2 }).pipe(Layer.provide(Reactivity.layer))
  const runtime = ManagedRuntime.make(
    Layer.effectDiscard(Effect.flatMap(Effect.service(ChangeFeed), (feed) => feed.subscribe((e) => heard.push(e))))
      .pipe(
        Layer.provideMerge(layerPgChangeFeed({ url: Redacted.make(url) })),
        Layer.provideMerge(client),
        Layer.provide(Logger.layer([logger]))
      )
  )
  return { heard, logged, runtime }
}

const until = async (check: () => boolean, withinMs: number) => {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe.skipIf(postgresUrl === undefined)("the change feed on PostgreSQL", () => {
  it("delivers committed changes to the other process only, and never a rolled-back one", async () => {
    const a = makeProcess(postgresUrl!)
    const b = makeProcess(postgresUrl!)
    try {
      await Promise.all([a.runtime.runPromise(Effect.void), b.runtime.runPromise(Effect.void)])
      const publish = (keyId: string, fail: boolean) =>
        a.runtime.runPromiseExit(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const feed = yield* ChangeFeed
          yield* sql.withTransaction(Effect.gen(function*() {
            yield* feed.publish({ _tag: "ApiKeyChanged", keyId })
            if (fail) return yield* Effect.fail("rolled back")
          }))
        }))
      const rolledBack = `rolled-back-${Date.now()}`
      const committed = `committed-${Date.now()}`
      await publish(rolledBack, true)
      await publish(committed, false)
      await until(() => b.heard.some((e) => e._tag === "ApiKeyChanged" && e.keyId === committed), 1000)
      // Notifications arrive in commit order: had the rolled-back one been sent, it would be here by now.
      expect(b.heard).not.toContainEqual({ _tag: "ApiKeyChanged", keyId: rolledBack })
      expect(a.heard.filter((e) => e._tag === "ApiKeyChanged" && e.keyId === committed)).toEqual([])
    } finally {
      await Promise.all([a.runtime.dispose(), b.runtime.dispose()])
    }
  })

  it("says when its connection is killed, listens again, and tells subscribers to resync", async () => {
    const b = makeProcess(postgresUrl!)
    const a = makeProcess(postgresUrl!)
    try {
      await Promise.all([a.runtime.runPromise(Effect.void), b.runtime.runPromise(Effect.void)])
      await a.runtime.runPromise(
        Effect.flatMap(
          Effect.service(SqlClient.SqlClient),
          (sql) =>
            sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE application_name = 'gateway-control change feed' AND datname = current_database()`
        )
      )
      await until(() => b.logged.some((line) => line.includes("the listening connection is down")), 2000)
      await until(() => b.heard.some((e) => e._tag === "Resync"), 3000)
      expect(b.logged.some((line) => line.includes("listening again"))).toBe(true)
      // And it hears changes again.
      const keyId = `after-reconnect-${Date.now()}`
      await a.runtime.runPromise(
        Effect.flatMap(Effect.service(ChangeFeed), (feed) => feed.publish({ _tag: "ApiKeyChanged", keyId }))
      )
      await until(() => b.heard.some((e) => e._tag === "ApiKeyChanged" && e.keyId === keyId), 1000)
    } finally {
      await Promise.all([a.runtime.dispose(), b.runtime.dispose()])
    }
  })
})
