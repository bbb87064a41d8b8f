/**
 * Private PostgreSQL 15 servers on loopback for failover and pooler tests, from Debian's binaries
 * (`/usr/lib/postgresql/15/bin`: initdb, pg_ctl, pg_basebackup) and Debian's `pgbouncer`. As root (CI), every
 * server runs as the `postgres` user through `runuser`, since initdb, postgres and pgbouncer refuse root.
 *
 * Without the binaries a suite skips with one loud line, or fails where `.ci/run` sets the REQUIRE_* flag.
 */
import { execFile, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { query } from "./Databases.ts"
import { freePort, freePorts } from "./ServerProcess.ts"

const exec = promisify(execFile)

export const PG_BIN = "/usr/lib/postgresql/15/bin"
export const PGBOUNCER = "/usr/sbin/pgbouncer"

/** Whether the binaries are here; else one loud line, or a failure when `requireFlag` is set to 1. */
export const availableOrSkip = (what: string, paths: ReadonlyArray<string>, requireFlag: string): boolean => {
  const missing = paths.filter((path) => !existsSync(path))
  if (missing.length === 0) return true
  if (process.env[requireFlag] === "1") {
    throw new Error(`${requireFlag}=1 but ${missing.join(", ")} is missing (see .ci/run)`)
  }
  console.warn(`\n*** ${what} SKIPPED: ${missing.join(", ")} missing (${requireFlag}=1 fails instead) ***\n`)
  return false
}

const asRoot = process.getuid?.() === 0

/** Runs a server binary, as `postgres` when we are root; rejects with its output on failure. */
const run = async (command: string, args: ReadonlyArray<string>) => {
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]]
  try {
    return await exec(file, argv, { timeout: 60_000 })
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string }
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`)
  }
}

let postgresIds: { uid: number; gid: number } | undefined
const ownedByServer = async (path: string) => {
  if (!asRoot) return
  if (postgresIds === undefined) {
    const [uid, gid] = await Promise.all([exec("id", ["-u", "postgres"]), exec("id", ["-g", "postgres"])])
    postgresIds = { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }
  }
  chownSync(path, postgresIds.uid, postgresIds.gid)
}

/** A private directory the servers may write. */
export const serverDir = async (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  await ownedByServer(dir)
  return dir
}

export interface PgNode {
  readonly port: number
  readonly dataDir: string
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  readonly url: (database?: string) => string
  readonly start: () => Promise<void>
  /** `pg_ctl stop -m immediate`: as a crash, no shutdown checkpoint, connections cut. */
  readonly kill: () => Promise<void>
  readonly promote: () => Promise<void>
}

const makeNode = (root: string, name: string, port: number, extra: ReadonlyArray<string> = []): PgNode => {
  const dataDir = join(root, name)
  const options = [`-p ${port}`, `-c listen_addresses=127.0.0.1`, `-c unix_socket_directories=${root}`, ...extra]
  return {
    port,
    dataDir,
    url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () =>
      run(`${PG_BIN}/pg_ctl`, [
        "-D",
        dataDir,
        "-w",
        "-t",
        "60",
        "-l",
        `${dataDir}.log`,
        "-o",
        options.join(" "),
        "start"
      ]).then(() => undefined),
    kill: () =>
      run(`${PG_BIN}/pg_ctl`, ["-D", dataDir, "-m", "immediate", "stop"]).then(() => undefined, () => undefined),
    promote: () => run(`${PG_BIN}/pg_ctl`, ["-D", dataDir, "-w", "-t", "60", "promote"]).then(() => undefined)
  }
}

/** Settings for a quick, small server: no durability beyond the processes (tests only), little memory. */
const QUICK = ["-c fsync=off", "-c full_page_writes=off", "-c shared_buffers=16MB", "-c max_connections=60"]

export interface ReplicatedPair {
  readonly primary: PgNode
  readonly standby: PgNode
  /** Both hosts, primary first, as libpq reads them. */
  readonly multiHostUrl: (database: string) => string
  readonly close: () => Promise<void>
}

/**
 * A primary and a standby streaming from it (`pg_basebackup -R`), with synchronous replication
 * (`synchronous_standby_names = '*'`, set on the primary once the standby streams, so a promoted standby does
 * not wait for a standby of its own), and `database` created on both.
 */
export const startReplicatedPair = async (database: string): Promise<ReplicatedPair> => {
  const root = await serverDir("gwc-pgpair-")
  const [primaryPort, standbyPort] = await freePorts(2)
  const primary = makeNode(root, "primary", primaryPort, [...QUICK, "-c wal_level=replica", "-c max_wal_senders=4"])
  const standby = makeNode(root, "standby", standbyPort, [...QUICK, "-c hot_standby=on"])
  const close = async () => {
    await Promise.all([primary.kill(), standby.kill()])
    rmSync(root, { recursive: true, force: true })
  }
  try {
    await run(`${PG_BIN}/initdb`, ["-D", primary.dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "-N"])
    await primary.start()
    await query(primary.url(), `CREATE DATABASE ${database}`)
    await run(`${PG_BIN}/pg_basebackup`, [
      "-h",
      "127.0.0.1",
      "-p",
      String(primaryPort),
      "-U",
      "postgres",
      "-D",
      standby.dataDir,
      "-R",
      "-X",
      "stream",
      "--checkpoint=fast",
      "--no-sync"
    ])
    await standby.start()
    const started = Date.now()
    while (
      (await query<{ n: number }>(primary.url(), "SELECT count(*)::int AS n FROM pg_stat_replication"))[0]?.n !== 1
    ) {
      if (Date.now() - started > 30_000) throw new Error("the standby did not start streaming within 30 s")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await query(primary.url(), "ALTER SYSTEM SET synchronous_standby_names = '*'")
    await query(primary.url(), "SELECT pg_reload_conf()")
    while (
      (await query<{ s: string }>(primary.url(), "SELECT sync_state AS s FROM pg_stat_replication"))[0]?.s !== "sync"
    ) {
      if (Date.now() - started > 30_000) throw new Error("replication did not turn synchronous within 30 s")
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    return {
      primary,
      standby,
      multiHostUrl: (name) =>
        `postgres://postgres@127.0.0.1:${primaryPort},127.0.0.1:${standbyPort}/${name}?target_session_attrs=read-write`,
      close
    }
  } catch (error) {
    await close()
    throw error
  }
}

export interface Pgbouncer {
  readonly port: number
  readonly url: (database: string) => string
  readonly close: () => Promise<void>
}

/** Debian's PgBouncer on loopback in front of `target` (`postgres://postgres@host:port`), in the given pool mode. */
export const startPgbouncer = async (
  target: { readonly host: string; readonly port: number },
  poolMode: "session" | "transaction" | "statement"
): Promise<Pgbouncer> => {
  const dir = await serverDir("gwc-pgbouncer-")
  const port = await freePort()
  const config = join(dir, "pgbouncer.ini")
  writeFileSync(join(dir, "users.txt"), `"postgres" ""\n`)
  writeFileSync(
    config,
    [
      "[databases]",
      `* = host=${target.host} port=${target.port}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${join(dir, "users.txt")}`,
      `pool_mode = ${poolMode}`,
      "default_pool_size = 8",
      "max_client_conn = 200",
      `logfile = ${join(dir, "pgbouncer.log")}`
    ].join("\n") + "\n"
  )
  for (const file of ["pgbouncer.ini", "users.txt"]) await ownedByServer(join(dir, file))
  // Started as the server user itself (not through runuser, which does not pass signals on), so that stopping
  // the child stops PgBouncer.
  await ownedByServer(dir)
  const child = spawn(PGBOUNCER, [config], { stdio: ["ignore", "pipe", "pipe"], ...postgresIds })
  let output = ""
  child.stdout.on("data", (chunk: Buffer) => void (output += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => void (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const close = async () => {
    child.kill("SIGINT")
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))])
    child.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
  const started = Date.now()
  while (true) {
    try {
      await query(`postgres://postgres@127.0.0.1:${port}/postgres`, "SELECT 1")
      break
    } catch (error) {
      if (child.exitCode !== null || Date.now() - started > 20_000) {
        await close()
        throw new Error(`pgbouncer did not start: ${String(error)}\n${output}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  return { port, url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`, close }
}
