/**
 * A PostgreSQL server of the test's own, from Debian's PostgreSQL 15 binaries (`initdb`, `pg_ctl`; PgCluster.ts
 * runs them, as `postgres` when we are root), in a temporary directory on a free loopback port, that the test may
 * stop cleanly and start again without touching the shared server on 5432.
 */
import { execFile } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { promisify } from "node:util"
import { PG_BIN, serverDir } from "./PgCluster.ts"
import { freePort } from "./ServerProcess.ts"

const exec = promisify(execFile)

/** The binaries this helper needs (for `availableOrSkip`). */
export const PRIVATE_POSTGRES_BINARIES = [`${PG_BIN}/initdb`, `${PG_BIN}/pg_ctl`]

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  readonly url: string
  /** Stops the server (`pg_ctl stop -m fast`): connections are closed and new ones refused. */
  readonly stop: () => Promise<void>
  /** Starts it again on the same port and data, once it accepts connections. */
  readonly start: () => Promise<void>
  /** The server's log, for failure messages. */
  readonly log: () => string
  /** Stops it at once and removes its directory. */
  readonly remove: () => Promise<void>
}

const asRoot = process.getuid?.() === 0

const pg = (command: string, args: ReadonlyArray<string>) =>
  asRoot
    ? exec("runuser", ["-u", "postgres", "--", join(PG_BIN, command), ...args], { timeout: 60_000 })
    : exec(join(PG_BIN, command), [...args], { timeout: 60_000 })

export const startPrivatePostgres = async (): Promise<PrivatePostgres> => {
  const dir = await serverDir("gwc-private-pg-")
  const data = join(dir, "data")
  const logFile = join(dir, "server.log")
  const port = await freePort()
  await pg("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c full_page_writes=off"
  ].join(" ")
  const start = () => pg("pg_ctl", ["-D", data, "-o", options, "-l", logFile, "-w", "-t", "60", "start"])
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]).then(() => undefined),
    start: () => start().then(() => undefined),
    log: () => existsSync(logFile) ? readFileSync(logFile, "utf8") : "",
    remove: async () => {
      await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
