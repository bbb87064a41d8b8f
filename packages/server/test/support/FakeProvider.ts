/**
 * A tiny OpenAI-compatible provider on 127.0.0.1 for tests: OpenAI's fine-tuning API (`GET /v1/fine_tuning/jobs`
 * over a fixed list of jobs; create, retrieve, cancel, a job's events and checkpoints), `GET /v1/models`, and
 * `POST /v1/chat/completions` / `/v1/completions`, which echo the last message (or the prompt) word by word, as
 * server-sent events when `stream` is asked; behaviours are chosen by the bearer key. It logs every request
 * (method, path, Host, Authorization, a fine-tuning call's body) and each completion asked, with whether the
 * caller went away before it ended, and counts the connections it accepts, so a test can show what reached it,
 * with which key, and that nothing did.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

export interface FakeProvider {
  readonly baseUrl: string
  readonly host: string
  readonly port: number
  readonly requests: Array<{
    readonly method: string
    readonly url: string
    readonly host: string | undefined
    readonly authorization: string | undefined
    /** The JSON body of a POST, parsed; undefined without one. */
    readonly body: unknown
  }>
  /** Keys answered 401 from now on, whatever they are (a revoked or rotated key). */
  readonly revoked: Set<string>
  /** Completions asked for: the body, the key, and whether the caller closed the connection before the end. */
  readonly completions: Array<{
    readonly body: Record<string, unknown>
    readonly authorization: string | undefined
    aborted: boolean
    finished: boolean
  }>
  /** TCP connections accepted so far. */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

export interface FakeProviderOptions {
  readonly jobCount?: number
  /** Where `Bearer sk-redirect` is sent with a 302. */
  readonly redirectTo?: string
  /** The loopback address to listen on; 127.0.0.1 unless given. */
  readonly address?: string
}

/** The model whose stream is slow: 60 words, 250 ms apart (a test stops it). */
export const SLOW_MODEL = "slow-model"

/** The words a completion answers: an echo of the last message's text (or the prompt). */
const answerWords = (body: Record<string, unknown>): Array<string> => {
  if (body.model === SLOW_MODEL) return Array.from({ length: 60 }, (_, i) => `word${i}`)
  const messages = Array.isArray(body.messages) ? body.messages as Array<{ content?: unknown }> : []
  const last = messages.at(-1)?.content ?? body.prompt
  const text = typeof last === "string" ? last : JSON.stringify(last)
  return `Echo: ${text}`.split(/(?<= )/)
}

/** Answers a completion: JSON, or server-sent events with a usage chunk when `stream_options.include_usage`. */
const complete = (
  req: IncomingMessage,
  res: ServerResponse,
  chat: boolean,
  log: FakeProvider["completions"]
) => {
  let text = ""
  req.setEncoding("utf8")
  req.on("data", (chunk: string) => text += chunk)
  req.on("end", () => {
    const body = JSON.parse(text) as Record<string, unknown>
    const entry = { body, authorization: req.headers.authorization, aborted: false, finished: false }
    log.push(entry)
    if (req.headers.authorization?.startsWith("Bearer sk-") !== true) {
      res.writeHead(401, { "content-type": "application/json" })
      return res.end(JSON.stringify({ error: { message: "Incorrect API key provided" } }))
    }
    const words = answerWords(body)
    const usage = { prompt_tokens: text.length % 50 + 5, completion_tokens: words.length, total_tokens: 0 }
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens
    const id = `chatcmpl-${log.length}`
    const model = String(body.model)
    if (body.stream !== true) {
      res.writeHead(200, { "content-type": "application/json" })
      entry.finished = true
      const content = words.join("")
      return res.end(JSON.stringify({
        id,
        object: chat ? "chat.completion" : "text_completion",
        created: 1_700_000_000,
        model,
        choices: [
          chat ? { index: 0, message: { role: "assistant", content }, finish_reason: "stop" } : {
            index: 0,
            text: content,
            finish_reason: "stop"
          }
        ],
        usage
      }))
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    res.on("close", () => {
      if (!entry.finished) entry.aborted = true
    })
    const event = (data: unknown) => res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`)
    const delay = model === SLOW_MODEL ? 250 : 20
    let i = 0
    const next = () => {
      if (res.destroyed) return
      if (i < words.length) {
        event({
          id,
          object: chat ? "chat.completion.chunk" : "text_completion",
          created: 1_700_000_000,
          model,
          choices: [
            chat ? { index: 0, delta: { content: words[i] }, finish_reason: null } : {
              index: 0,
              text: words[i],
              finish_reason: null
            }
          ],
          usage: null
        })
        i++
        setTimeout(next, delay)
        return
      }
      const options = body.stream_options as { include_usage?: boolean } | undefined
      if (options?.include_usage === true) {
        event({ id, object: "chat.completion.chunk", created: 1_700_000_000, model, choices: [], usage })
      }
      event("[DONE]")
      entry.finished = true
      res.end()
    }
    next()
  })
}

const job = (name: string, i: number) => ({
  id: `ftjob-${name}-${String(i).padStart(3, "0")}`,
  object: "fine_tuning.job",
  created_at: 1_700_000_000 + i,
  finished_at: null,
  model: "gpt-4o-mini-2024-07-18",
  fine_tuned_model: null,
  organization_id: "org-fake",
  status: "succeeded",
  hyperparameters: { n_epochs: "auto" },
  result_files: [],
  trained_tokens: 1000 + i,
  training_file: "file-abc",
  validation_file: null,
  seed: 42,
  integrations: [{ type: "wandb", wandb: { project: "p", name: null, entity: null, tags: ["t"] } }],
  error: { code: "", message: "", param: "" },
  user_provided_suffix: "extra-field-kept"
})

const EVENTS = 5
const event = (jobId: string, i: number) => ({
  object: "fine_tuning.job.event",
  id: `ftevent-${jobId}-${i}`,
  created_at: 1_700_000_100 + i,
  level: i === EVENTS - 1 ? "warn" : "info",
  message: `Step ${i}`,
  data: {},
  type: "message"
})
const checkpoint = (jobId: string, i: number) => ({
  object: "fine_tuning.job.checkpoint",
  id: `ftckpt-${jobId}-${i}`,
  created_at: 1_700_000_200 + i,
  fine_tuned_model_checkpoint: `ft:gpt-4o-mini-2024-07-18:org-fake::${jobId}:ckpt-step-${(i + 1) * 10}`,
  fine_tuning_job_id: jobId,
  metrics: { step: (i + 1) * 10, train_loss: 0.5 - i / 10, train_mean_token_accuracy: 0.8 },
  step_number: (i + 1) * 10
})

/** One page of `items` after the item `after` names (by id), `limit` long. */
const pageOf = <T extends { readonly id: string }>(items: ReadonlyArray<T>, url: URL, defaultLimit: number) => {
  const limit = Number(url.searchParams.get("limit") ?? String(defaultLimit))
  const after = url.searchParams.get("after")
  const start = after === null ? 0 : items.findIndex((item) => item.id === after) + 1
  return { data: items.slice(start, start + limit), has_more: start + limit < items.length }
}

const readBody = (req: IncomingMessage): Promise<unknown> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      try {
        resolve(text === "" ? undefined : JSON.parse(text))
      } catch {
        resolve(text)
      }
    })
  })

export const startFakeProvider = (name: string, options: FakeProviderOptions = {}): Promise<FakeProvider> => {
  const jobs = Array.from({ length: options.jobCount ?? 7 }, (_, i) => job(name, i))
  /** Jobs created through the API, by id: not in the fixed list, so listings stay as they were. */
  const created = new Map<string, Record<string, unknown>>()
  let connections = 0
  const requests: FakeProvider["requests"] = []
  const revoked = new Set<string>()
  const completions: FakeProvider["completions"] = []
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://fake")
    const method = req.method ?? "GET"
    const completion = method === "POST" && ["/v1/chat/completions", "/v1/completions"].includes(url.pathname)
    // A completion's body is read where it is answered.
    const body = completion ? undefined : await readBody(req)
    requests.push({
      method,
      url: req.url ?? "",
      host: req.headers.host,
      authorization: req.headers.authorization,
      body
    })
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers })
      res.end(typeof body === "string" ? body : JSON.stringify(body))
    }
    const notFound = () => send(404, { error: { message: "not found", type: "invalid_request_error" } })
    const key = req.headers.authorization?.replace(/^Bearer /, "")
    if (key !== undefined && revoked.has(key)) {
      return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } })
    }
    if (completion) return complete(req, res, url.pathname === "/v1/chat/completions", completions)
    if (url.pathname === "/v1/models" && method === "GET") {
      if (req.headers.authorization === "Bearer sk-expired") {
        return send(401, { error: { message: "Your API key has expired.", code: "api_key_expired" } })
      }
      if (req.headers.authorization !== "Bearer sk-good") {
        return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } })
      }
      return send(200, { object: "list", data: [{ id: "gpt-4o-mini", object: "model", owned_by: "system" }] })
    }
    const jobRoute = /^\/v1\/fine_tuning\/jobs\/([^/]+)(?:\/(cancel|events|checkpoints))?$/.exec(url.pathname)
    if (url.pathname !== "/v1/fine_tuning/jobs" && jobRoute === null) return notFound()
    switch (req.headers.authorization) {
      case "Bearer sk-good":
        break
      case "Bearer sk-429":
        return send(429, { error: { message: "Rate limit reached", type: "requests" } }, { "retry-after": "1" })
      case "Bearer sk-broken":
        return send(200, { data: "not a list" })
      case "Bearer sk-redirect":
        return send(302, { error: { message: "moved" } }, { location: options.redirectTo ?? "/" })
      case "Bearer sk-slow":
        setTimeout(() => send(200, { object: "list", data: [], has_more: false }), 1500)
        return
      default:
        return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } })
    }
    if (jobRoute === null) {
      if (method === "GET") return send(200, { object: "list", ...pageOf(jobs, url, 20) })
      if (method !== "POST") return notFound()
      const request = body as Record<string, unknown>
      const id = `ftjob-${name}-new-${created.size}`
      const made = {
        ...job(name, 0),
        id,
        status: "validating_files",
        model: request.model,
        training_file: request.training_file,
        validation_file: request.validation_file ?? null,
        trained_tokens: null,
        user_provided_suffix: request.suffix ?? null,
        hyperparameters: request.hyperparameters ?? { n_epochs: "auto" },
        metadata: request.metadata ?? null
      }
      created.set(id, made)
      return send(200, made)
    }
    const [, rawId, action] = jobRoute
    const id = decodeURIComponent(rawId)
    const found = created.get(id) ?? jobs.find((j) => j.id === id)
    if (found === undefined) return notFound()
    if (action === undefined && method === "GET") return send(200, found)
    if (action === "cancel" && method === "POST") {
      const cancelled = { ...found, status: "cancelled" }
      created.set(id, cancelled)
      return send(200, cancelled)
    }
    if (action === "events" && method === "GET") {
      const events = Array.from({ length: EVENTS }, (_, i) => event(id, i))
      return send(200, { object: "list", ...pageOf(events, url, 20) })
    }
    if (action === "checkpoints" && method === "GET") {
      const page = pageOf(Array.from({ length: 3 }, (_, i) => checkpoint(id, i)), url, 10)
      return send(200, {
        object: "list",
        ...page,
        first_id: page.data[0]?.id ?? null,
        last_id: page.data.at(-1)?.id ?? null
      })
    }
    return notFound()
  })
  server.on("connection", () => connections++)
  return new Promise((resolve) => {
    const address = options.address ?? "127.0.0.1"
    server.listen(0, address, () => {
      const bound = server.address()
      const port = typeof bound === "object" && bound !== null ? bound.port : 0
      resolve({
        baseUrl: `http://${address}:${port}/v1`,
        host: `${address}:${port}`,
        port,
        requests,
        revoked,
        completions,
        connections: () => connections,
        close: () => new Promise((done) => server.close(() => done()))
      })
    })
  })
}
