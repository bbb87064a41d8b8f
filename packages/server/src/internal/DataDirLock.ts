/**
 * PGlite is one process's database: two processes opening the same data directory would corrupt it.
 * A lock file holding the owner's pid guards it; a lock left by a process that no longer runs is taken over.
 * Within one process, two embedded engines on one directory would corrupt it just the same: the
 * directories this process holds are remembered too.
 */
import { Effect } from "effect"
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs"
import { join } from "node:path"
import { InvalidConfiguration } from "../Settings.ts"

const heldHere = new Set<string>()

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * What a user running a command beside a server meets most: say who holds the directory, why only one process
 * may, and each way on (stop the holder and run again, another DATA_DIR, or PostgreSQL for several processes).
 */
const heldByProcess = (dataDir: string, owner: number) =>
  `The data directory ${dataDir} is in use by process ${owner} (a running gateway-control server, or another ` +
  `command): the embedded PGlite store is opened by one process at a time. Stop that process (kill ${owner}, ` +
  `or Ctrl-C where it runs) and run this again; or set DATA_DIR to another directory; or, to run commands ` +
  `beside a running server, keep the store in PostgreSQL (DATABASE_URL).`

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

const take = (dataDir: string, path: string): Effect.Effect<void, InvalidConfiguration> => {
  if (heldHere.has(path)) {
    return Effect.fail(
      new InvalidConfiguration({
        message: `The data directory ${dataDir} is in use by another engine in this process; close it first.`
      })
    )
  }
  if (tryCreate(path)) return Effect.void
  // A lock with this process's pid that no engine here holds was left by an earlier process with the same pid.
  const owner = Number(readFileSync(path, "utf8").trim())
  if (Number.isInteger(owner) && owner !== process.pid && isRunning(owner)) {
    return Effect.fail(
      new InvalidConfiguration({
        message: heldByProcess(dataDir, owner)
      })
    )
  }
  rmSync(path, { force: true })
  return tryCreate(path)
    ? Effect.void
    : Effect.fail(new InvalidConfiguration({ message: `Could not lock the data directory ${dataDir}.` }))
}

/** Holds `dataDir/gateway-control.lock` for the scope; fails when another live process or engine holds it. */
export const lockDataDir = (dataDir: string) => {
  const path = join(dataDir, "gateway-control.lock")
  return Effect.acquireRelease(
    Effect.suspend(() =>
      Effect.tap(take(dataDir, path), () =>
        Effect.sync(() => {
          heldHere.add(path)
        }))
    ),
    () =>
      Effect.sync(() => {
        heldHere.delete(path)
        rmSync(path, { force: true })
      })
  )
}
