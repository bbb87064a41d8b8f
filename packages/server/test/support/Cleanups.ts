/**
 * What a test file started (processes, databases, temporary directories), undone after its tests, last first:
 * a process is stopped before the directory it writes to is removed.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

export type Cleanup = () => unknown

/** The file's cleanups, run after all its tests; push one as soon as there is something to undo. */
export const cleanupsAfterAll = (): Array<Cleanup> => {
  const cleanups: Array<Cleanup> = []
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })
  return cleanups
}

/** A new empty directory under the system's temporary one, removed with the file's other cleanups. */
export const tempDirWith = (cleanups: Array<Cleanup>, prefix: string) => () => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
