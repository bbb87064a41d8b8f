/**
 * `gateway-control serve` as a child process, the way an operator runs it.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { createServer, type Server } from "node:net"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const binPath = fileURLToPath(new URL("../../bin/gateway-control.mjs", import.meta.url))
/** The CLI as `node` arguments, with no flag: in the checkout the bin itself runs the `.ts` sources. */
export const cli = [binPath]

const exec = promisify(execFile)

/**
 * Runs the CLI with `env` over this process's, for `timeoutMs` at most (killed then); a non-zero exit is returned,
 * not thrown. A test whose own timeout is a minute passes less, so that a command that hangs fails the test's
 * assertion with what it printed, rather than the test's timeout with nothing.
 */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>, timeoutMs = 60_000) =>
  exec(process.execPath, [...cli, ...args], { env: { ...process.env, ...env }, timeout: timeoutMs }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number | null; signal?: string | null; stdout: string; stderr: string }) => error
  )

/**
 * `count` distinct free ports. Each probe stays open until all are found: two `freePort()` calls in a row can
 * return the same port, which haproxy binds twice without a word (SO_REUSEPORT).
 */
export const freePorts = async (count: number): Promise<Array<number>> => {
  const probes = await Promise.all(Array.from({ length: count }, () =>
    new Promise<Server>((resolve, reject) => {
      const probe = createServer()
      probe.once("error", reject)
      probe.listen(0, "127.0.0.1", () => resolve(probe))
    })))
  const ports = probes.map((probe) => {
    const address = probe.address()
    return typeof address === "object" && address !== null ? address.port : 0
  })
  await Promise.all(probes.map((probe) => new Promise<void>((resolve) => probe.close(() => resolve()))))
  return ports
}

/** One free port (`freePorts` when a test needs several). */
export const freePort = async (): Promise<number> => (await freePorts(1))[0]!

export interface ServerProcess {
  readonly child: ChildProcess
  readonly baseUrl: string
  /** The admin key printed at the first start of an empty store, if there was one. */
  readonly adminKey: string | undefined
  readonly stderr: () => string
  readonly exited: Promise<number | null>
}

/**
 * Starts `serve` with the given environment; the in-memory store unless `env` says otherwise, on a free port
 * unless `env.PORT` names one (a test that must know the address first, e.g. for `PUBLIC_URL`). `command` is what
 * `node` runs before `serve`: the checkout's bin unless given (Node flags, then another entry point).
 */
export const startServerProcess = async (
  env: Record<string, string> = {},
  command: ReadonlyArray<string> = cli
): Promise<ServerProcess> => {
  const port = env.PORT === undefined ? await freePort() : Number(env.PORT)
  const child = spawn(process.execPath, [...command, "serve"], {
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", GATEWAY_STORE: "memory", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 60_000)
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
      if (stderr.includes("Listening on")) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}:\n${stderr}`))
    })
  })
  return {
    child,
    baseUrl: `http://127.0.0.1:${port}`,
    adminKey: /x-service-api-key: (gwc_[A-Za-z0-9_-]+)/.exec(stderr)?.[1],
    stderr: () => stderr,
    exited
  }
}
