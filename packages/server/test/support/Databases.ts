/**
 * Throwaway PostgreSQL databases for process-level tests: created on the server at TEST_DATABASE_URL
 * (or DATABASE_URL), dropped afterwards.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"

export const postgresUrl: string | undefined = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL

const admin = <A>(url: string, statement: string) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const client = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
      return yield* client.unsafe<A & object>(statement)
    }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))
  )

export interface FreshDatabase {
  readonly url: string
  readonly drop: () => Promise<void>
}

export const freshDatabase = async (url: string): Promise<FreshDatabase> => {
  const name = `gwc_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await admin(url, `CREATE DATABASE ${name}`)
  const target = new URL(url)
  target.pathname = `/${name}`
  return {
    url: target.toString(),
    drop: () => admin(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).then(() => undefined)
  }
}

/** Runs a query against a database and returns its rows. */
export const query = <A>(url: string, statement: string) => admin<A>(url, statement)
