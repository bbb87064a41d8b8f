/**
 * The key that encrypts provider keys at rest: `GATEWAY_MASTER_KEY` (32 bytes, base64), or, when absent,
 * one generated once into the data directory (mode 0600). Processes sharing one PostgreSQL must share it.
 */
import { Effect, Option, Redacted, Result } from "effect"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import type { AppConfig } from "../AppConfig.ts"
import { decodeMasterKey, InvalidConfiguration } from "../Settings.ts"

export const loadMasterKey = (
  config: Pick<AppConfig, "masterKey" | "store" | "dataDir">
): Effect.Effect<Uint8Array, InvalidConfiguration> =>
  Effect.gen(function*() {
    if (Option.isSome(config.masterKey)) return Redacted.value(config.masterKey.value)
    // Nothing outlives the process in memory, so neither does its key.
    if (config.store.kind === "memory") return new Uint8Array(randomBytes(32))
    const dir = resolve(config.dataDir)
    const path = join(dir, "master.key")
    const existing = yield* Effect.sync(() => {
      try {
        return readFileSync(path, "utf8")
      } catch {
        return undefined
      }
    })
    if (existing !== undefined) {
      return yield* Result.match(decodeMasterKey(existing, path), {
        onSuccess: (key) => Effect.succeed(Redacted.value(key)),
        onFailure: (message) => Effect.fail(new InvalidConfiguration({ message }))
      })
    }
    const key = randomBytes(32)
    yield* Effect.sync(() => {
      mkdirSync(dir, { recursive: true, mode: 0o700 })
      writeFileSync(path, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" })
    })
    if (config.store.kind === "postgres") {
      yield* Effect.logWarning(
        `Generated a master key in ${path}; every process on this database needs the same key: set GATEWAY_MASTER_KEY (or the masterKey option).`
      )
    }
    return new Uint8Array(key)
  })
