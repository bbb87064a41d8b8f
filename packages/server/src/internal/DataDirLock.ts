/**
 * PGlite is one process's database: two processes opening the same data directory would corrupt it.
 * A lock file holding the owner's pid guards it; a lock left by a process that no longer runs is taken over.
 */
import { Effect } from "effect"
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"
import { InvalidConfiguration } from "../AppConfig.ts"

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

const tryCreate = (path: string): boolean => {
  try {
    const fd = openSync(path, "wx", 0o600)
    writeSync(fd, String(process.pid))
    closeSync(fd)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false
    throw error
  }
}

/** Holds `dataDir/gateway-control.lock` for the scope; fails when another live process holds it. */
export const lockDataDir = (dataDir: string) => {
  const path = join(dataDir, "gateway-control.lock")
  return Effect.acquireRelease(
    Effect.suspend(() => {
      if (tryCreate(path)) return Effect.void
      const owner = Number(readFileSync(path, "utf8").trim())
      if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
        return Effect.fail(
          new InvalidConfiguration({
            message: `The data directory ${dataDir} is in use by process ${owner}; stop it first, or set DATA_DIR.`
          })
        )
      }
      rmSync(path, { force: true })
      return tryCreate(path)
        ? Effect.void
        : Effect.fail(new InvalidConfiguration({ message: `Could not lock the data directory ${dataDir}.` }))
    }),
    () => Effect.sync(() => rmSync(path, { force: true }))
  )
}
