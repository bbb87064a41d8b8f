/**
 * Migrating against a server that takes no writes (a replica, or a read-only session) fails naming that cause,
 * not the "current transaction is aborted" of the migrator's next statement; nothing is left half-done.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { describe, expect, it } from "vitest"
import { migrate } from "../src/Migrations.ts"
import { postgresUrl } from "./support/Stores.ts"

describe.runIf(postgresUrl !== undefined)("migrations on a server that takes no writes", () => {
  it("fail with a message that names the read-only session", async () => {
    const readOnly = PgClient.layer({
      url: Redacted.make(postgresUrl!),
      maxConnections: 1,
      // A schema that does not exist: were the check missing, nothing could be created anywhere anyway.
      startupParameters: { default_transaction_read_only: "on", search_path: "gateway_read_only_check" }
    })
    const exit = await Effect.runPromiseExit(
      migrate.pipe(Effect.provide(Layer.provideMerge(readOnly, Reactivity.layer)))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    const message = Exit.isFailure(exit) ? String(exit.cause) : ""
    expect(message).toMatch(/read-only/)
    expect(message).toMatch(/MigrationRefused/)
    expect(message).not.toMatch(/current transaction is aborted/)
  })
})
