/**
 * Once per `npm test`: a migrated PGlite data directory, dumped to a file. Tests boot PGlite from it in
 * about half a second instead of running initdb (3–6 s and ~850 MB each). The directory itself is a copy of
 * the installation's template (PgliteTemplate.ts), so initdb runs once per installation, not once per run.
 */
import { Effect } from "effect"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { migrate } from "./packages/adapters-sql/src/Migrations.ts"
import * as PgliteClient from "./packages/adapters-sql/src/PgliteClient.ts"

declare module "vitest" {
  export interface ProvidedContext {
    pgliteSnapshot: string
  }
}

export default async function setup(project: TestProject) {
  const path = join(tmpdir(), `gateway-control-pglite-${process.pid}.tar.gz`)
  const dataDir = await mkdtemp(join(tmpdir(), "gateway-control-pglite-"))
  const snapshot = await Effect.runPromise(
    Effect.gen(function*() {
      yield* migrate
      const db = yield* PgliteClient.Pglite
      return yield* Effect.promise(() => db.dumpDataDir("gzip"))
    }).pipe(Effect.provide(PgliteClient.layer({ dataDir: join(dataDir, "pgdata") })), Effect.scoped)
  )
  await rm(dataDir, { recursive: true, force: true })
  await writeFile(path, new Uint8Array(await snapshot.arrayBuffer()))
  project.provide("pgliteSnapshot", path)
  return () => rm(path, { force: true })
}
