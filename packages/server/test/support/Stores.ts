/**
 * The stores a server test runs on: memory always, PGlite from the shared migrated snapshot always, and
 * PostgreSQL (a schema of its own) when TEST_DATABASE_URL or DATABASE_URL is set.
 */
import { layerMemory } from "@gateway-control/adapters-memory"
import type { StorePorts } from "@gateway-control/domain"
import type { Layer } from "effect"
import { pgliteFromSnapshot, postgresInFreshSchema, postgresUrl } from "../../../adapters-sql/test/support/Stores.ts"

export interface TestStore {
  readonly name: string
  readonly layer: () => Layer.Layer<StorePorts, unknown>
}

const url = postgresUrl ?? ""

export const testStores: ReadonlyArray<TestStore> = [
  { name: "memory", layer: () => layerMemory },
  { name: "PGlite", layer: pgliteFromSnapshot },
  ...(postgresUrl === undefined ? [] : [{ name: "PostgreSQL", layer: () => postgresInFreshSchema(url) }])
]
