/**
 * A PostgreSQL server of the test's own, from Debian's PostgreSQL 15 binaries (`initdb`, `pg_ctl`), in a
 * temporary directory on a free loopback port, that the test may stop and start again without touching the
 * shared server on 5432. PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user.
 *
 * Without the binaries, `privatePostgresAvailable` is false and callers skip with one loud line, or fail when
 * `REQUIRE_POSTGRES_BINARIES=1` (set by `.ci/run`, where they are part of the machine).
 */
import { execFile } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { freePort } from "./ServerProcess.ts"

const run = promisify(execFile)

export const POSTGRES_BIN = "/usr/lib/postgresql/15/bin"

export const privatePostgresAvailable = existsSync(join(POSTGRES_BIN, "initdb")) &&
  existsSync(join(POSTGRES_BIN, "pg_ctl"))

/** Throws under `REQUIRE_POSTGRES_BINARIES=1` when the binaries are missing; else says once that `what` is skipped. */
export const announcePrivatePostgres = (what: string) => {
  if (privatePostgresAvailable) return
  if (process.env.REQUIRE_POSTGRES_BINARIES === "1") {
    throw new Error(
      `REQUIRE_POSTGRES_BINARIES=1 but ${POSTGRES_BIN}/initdb or pg_ctl is missing (apt-get install postgresql)`
    )
  }
  console.warn(
    `\n*** ${what} SKIPPED: ${POSTGRES_BIN}/initdb and pg_ctl are missing (apt-get install postgresql; ` +
      "REQUIRE_POSTGRES_BINARIES=1 fails instead) ***\n"
  )
}

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback). */
  readonly url: string
  readonly port: number
  /** Stops the server (`pg_ctl stop -m fast`): connections are closed and new ones refused. */
  readonly stop: () => Promise<void>
  /** Starts it again on the same port and data, once it accepts connections. */
  readonly start: () => Promise<void>
  /** The server's log, for failure messages. */
  readonly log: () => string
  /** Stops it at once and removes its directory. */
  readonly remove: () => Promise<void>
}

const asRoot = userInfo().uid === 0

/** A PostgreSQL command as the user the server runs as. */
const pg = (command: string, args: ReadonlyArray<string>) =>
  asRoot
    ? run("runuser", ["-u", "postgres", "--", join(POSTGRES_BIN, command), ...args])
    : run(join(POSTGRES_BIN, command), [...args])

export const startPrivatePostgres = async (): Promise<PrivatePostgres> => {
  const dir = mkdtempSync(join(tmpdir(), "gwc-private-pg-"))
  if (asRoot) {
    const postgres = await run("id", ["-u", "postgres"]).then((out) => Number(out.stdout.trim()))
    const group = await run("id", ["-g", "postgres"]).then((out) => Number(out.stdout.trim()))
    chownSync(dir, postgres, group)
  }
  const data = join(dir, "data")
  const logFile = join(dir, "server.log")
  const port = await freePort()
  await pg("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"])
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off"
  ].join(" ")
  const start = async () => {
    await pg("pg_ctl", ["-D", data, "-o", options, "-l", logFile, "-w", "-t", "60", "start"])
  }
  const stop = async () => {
    await pg("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"])
  }
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop,
    start,
    log: () => existsSync(logFile) ? readFileSync(logFile, "utf8") : "",
    remove: async () => {
      await pg("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
