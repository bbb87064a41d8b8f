/**
 * Two `serve` processes on one fresh PostgreSQL database, for tests of what crosses processes (the change feed):
 * the first bootstraps the store and prints the admin key, the second starts on it. Only where
 * TEST_DATABASE_URL (or DATABASE_URL) names a server: callers skip otherwise (`postgresUrl`).
 */
import { randomBytes } from "node:crypto"
import { expect } from "vitest"
import { freshDatabase, postgresUrl } from "./Databases.ts"
import { type ServerProcess, startServerProcess } from "./ServerProcess.ts"

export { postgresUrl }

export interface TwoProcesses {
  readonly a: ServerProcess
  readonly b: ServerProcess
  /** The admin key process A printed at its first start. */
  readonly admin: string
  /** The bootstrapped workspace. */
  readonly workspaceId: string
  /** The database's name on the server (for statements about its connections). */
  readonly databaseName: string
  /** Stops both processes and drops the database. */
  readonly close: () => Promise<void>
}

/** Calls `check` until it holds, for at most `withinMs`; the time it took. */
export const within = async (withinMs: number, check: () => Promise<boolean>) => {
  const started = performance.now()
  while (!(await check())) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return performance.now() - started
}

/** A call with an API key, and a JSON body when given. */
export const call = (server: ServerProcess, key: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { "x-service-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })

/** The answer's JSON, once its status is the expected one. */
export const json = async <A>(response: Response, status: number): Promise<A> => {
  expect(response.status, await response.clone().text()).toBe(status)
  return (await response.json()) as A
}

/**
 * A workspace key made through `a` and resolved (so cached) by `b`, then revoked through `a`: how long `b` took
 * to refuse it, which must be within `withinMs`.
 */
export const revocationCrossing = async (
  processes: { readonly a: ServerProcess; readonly b: ServerProcess },
  admin: string,
  workspaceId: string,
  name: string,
  withinMs = 1_000
) => {
  const { a, b } = processes
  const created = await json<{ id: string; key: string }>(
    await call(a, admin, "POST", "/v1/api-keys/workspace/service", {
      name,
      scopes: ["workspaces.list"],
      workspace_id: workspaceId
    }),
    201
  )
  expect((await call(b, created.key, "GET", "/v1/workspaces")).status).toBe(200)
  expect((await call(a, admin, "DELETE", `/v1/api-keys/${created.id}`)).status).toBe(200)
  return within(withinMs, async () => (await call(b, created.key, "GET", "/v1/workspaces")).status === 401)
}

/**
 * Starts the two processes, one after the other, sharing the database, the master key and `env`; `own` adds
 * what one of them alone gets (a port of its own, e.g. `METRICS_PORT`).
 */
export const startTwoProcesses = async (
  env: Record<string, string> = {},
  own: { readonly a?: Record<string, string>; readonly b?: Record<string, string> } = {}
): Promise<TwoProcesses> => {
  const cleanups: Array<() => Promise<unknown> | unknown> = []
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  }
  try {
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    const shared = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
      ...env
    }
    const a = await startServerProcess({ ...shared, ...own.a })
    cleanups.push(() => a.child.kill("SIGKILL"))
    const b = await startServerProcess({ ...shared, ...own.b })
    cleanups.push(() => b.child.kill("SIGKILL"))
    const admin = a.adminKey!
    const workspaces = await json<{ data: Array<{ id: string }> }>(await call(a, admin, "GET", "/v1/workspaces"), 200)
    return {
      a,
      b,
      admin,
      workspaceId: workspaces.data[0]!.id,
      databaseName: new URL(database.url).pathname.slice(1),
      close
    }
  } catch (error) {
    await close()
    throw error
  }
}
