/**
 * A bounded mixed load against `serve` processes, for failover and pooler tests: a few workers send creates,
 * reads, renders and prompt updates in turn, to the processes in turn, and every answer is kept (time, status,
 * error code, `retry-after`, and the name of what a 2xx create made) for the test to judge.
 */
import type { ServerProcess } from "./ServerProcess.ts"
import { call, json } from "./TwoProcesses.ts"

export type Operation = "create" | "read" | "render" | "update"

export interface Answer {
  readonly at: number
  readonly process: number
  readonly operation: Operation
  /** The HTTP status, or 0 when no answer came (the request's own timeout, a refused connection). */
  readonly status: number
  readonly code: string | undefined
  readonly retryAfter: string | null
  /** The workspace a 2xx create made. */
  readonly created: string | undefined
}

export interface LoadOptions {
  readonly processes: ReadonlyArray<ServerProcess>
  readonly key: string
  /** A prompt to render and update. */
  readonly promptId: string
  readonly operations: ReadonlyArray<Operation>
  readonly workers: number
  /** The load stops at this many requests, or once `stop()` holds. */
  readonly maxRequests: number
  readonly stop: () => boolean
  readonly requestTimeoutMs?: number
}

export interface Load {
  readonly answers: Array<Answer>
  readonly done: Promise<void>
}

const send = async (
  process: ServerProcess,
  key: string,
  method: string,
  path: string,
  body: unknown,
  timeoutMs: number
) => {
  try {
    const response = await fetch(`${process.baseUrl}${path}`, {
      method,
      headers: { "x-service-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs)
    })
    const text = await response.text()
    let parsed: { id?: unknown; error?: { code?: unknown } } = {}
    try {
      parsed = JSON.parse(text) as typeof parsed
    } catch {
      // Not JSON: judged by its status alone.
    }
    return {
      status: response.status,
      code: typeof parsed.error?.code === "string" ? parsed.error.code : undefined,
      retryAfter: response.headers.get("retry-after")
    }
  } catch {
    return { status: 0, code: undefined, retryAfter: null }
  }
}

let runs = 0

export const startLoad = (options: LoadOptions): Load => {
  const answers: Array<Answer> = []
  const run = ++runs
  let sent = 0
  const timeoutMs = options.requestTimeoutMs ?? 15_000
  const worker = async (w: number) => {
    while (sent < options.maxRequests && !options.stop()) {
      const n = sent++
      const operation = options.operations[n % options.operations.length]!
      const processIndex = (n + w) % options.processes.length
      const process = options.processes[processIndex]!
      const name = `load-${run}-${n}`
      const answer = operation === "create"
        ? await send(process, options.key, "POST", "/v1/workspaces", { name }, timeoutMs)
        : operation === "read"
        ? await send(process, options.key, "GET", "/v1/workspaces?page_size=5", undefined, timeoutMs)
        : operation === "render"
        ? await send(process, options.key, "POST", `/v1/prompts/${options.promptId}/render`, {
          variables: { who: name }
        }, timeoutMs)
        : await send(process, options.key, "PUT", `/v1/prompts/${options.promptId}`, {
          string: `Hello {{who}} (${name})`
        }, timeoutMs)
      answers.push({
        at: Date.now(),
        process: processIndex,
        operation,
        ...answer,
        created: operation === "create" && answer.status === 201 ? name : undefined
      })
    }
  }
  const done = Promise.all(Array.from({ length: options.workers }, (_, w) => worker(w))).then(() => undefined)
  return { answers, done }
}

/** A prompt of the workspace, made through `process`, for the load to render and update (`promptId`). */
export const loadPrompt = async (process: ServerProcess, key: string, workspaceId: string, name: string) => {
  const created = await json<{ id: string }>(
    await call(process, key, "POST", "/v1/prompts", {
      name,
      workspace_id: workspaceId,
      string: "Hello {{who}}",
      model: "m"
    }),
    201
  )
  return created.id
}

/** Every name of a workspace in the organisation (the admin key's). */
export const workspaceNames = async (process: ServerProcess, key: string): Promise<Set<string>> => {
  const names = new Set<string>()
  let page = 0
  while (true) {
    const response = await fetch(`${process.baseUrl}/v1/workspaces?page_size=100&current_page=${page}`, {
      headers: { "x-service-api-key": key }
    })
    if (response.status !== 200) throw new Error(`listing workspaces answered ${response.status}`)
    const body = (await response.json()) as { data: Array<{ name: string }>; total?: number }
    for (const workspace of body.data) names.add(workspace.name)
    if (body.data.length < 100) return names
    page++
  }
}
