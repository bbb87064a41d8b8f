/**
 * Stores for server tests: the in-memory store, and PGlite booted from the migrated snapshot that
 * vitest.global-setup.ts makes once per run.
 */
import { layerMemory } from "@gateway-control/adapters-memory"
import { layerFromClient, PgliteClient } from "@gateway-control/adapters-sql"
import { readFileSync } from "node:fs"
import { inject } from "vitest"
import type { StoreLayer } from "./TestServer.ts"

declare module "vitest" {
  export interface ProvidedContext {
    pgliteSnapshot: string
  }
}

let snapshot: Uint8Array<ArrayBuffer> | undefined

/** A fresh PGlite database in memory, already migrated. */
export const pgliteStore = (): StoreLayer => {
  snapshot ??= new Uint8Array(readFileSync(inject("pgliteSnapshot")))
  return layerFromClient(PgliteClient.layer({ loadDataDir: new Blob([snapshot]) }))
}

/** The stores every store-sensitive server test runs against, by name. */
export const testStores: ReadonlyArray<readonly [name: string, make: () => StoreLayer]> = [
  ["memory", () => layerMemory],
  ["pglite", pgliteStore]
]
