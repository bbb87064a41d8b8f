/**
 * A tiny OpenAI-compatible provider on 127.0.0.1 for tests: `GET /v1/fine_tuning/jobs` over a fixed list
 * of jobs, with behaviours chosen by the bearer key, and `POST /v1/chat/completions` / `/v1/completions`, which
 * echo the last message (or the prompt) word by word, as server-sent events when `stream` is asked. It counts
 * the connections it accepts, so a test can show that nothing reached it, and logs each completion asked, with
 * whether the caller went away before it ended.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

export interface FakeProvider {
  readonly baseUrl: string
  readonly host: string
  readonly port: number
  readonly requests: Array<{
    readonly url: string
    readonly host: string | undefined
    readonly authorization: string | undefined
  }>
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

export const startFakeProvider = (name: string, options: FakeProviderOptions = {}): Promise<FakeProvider> => {
  const jobs = Array.from({ length: options.jobCount ?? 7 }, (_, i) => job(name, i))
  let connections = 0
  const requests: FakeProvider["requests"] = []
  const completions: FakeProvider["completions"] = []
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://fake")
    requests.push({ url: req.url ?? "", host: req.headers.host, authorization: req.headers.authorization })
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers })
      res.end(typeof body === "string" ? body : JSON.stringify(body))
    }
    if (req.method === "POST" && url.pathname === "/v1/chat/completions") return complete(req, res, true, completions)
    if (req.method === "POST" && url.pathname === "/v1/completions") return complete(req, res, false, completions)
    if (url.pathname !== "/v1/fine_tuning/jobs") return send(404, { error: { message: "not found" } })
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
    const limit = Number(url.searchParams.get("limit") ?? "20")
    const after = url.searchParams.get("after")
    const start = after === null ? 0 : jobs.findIndex((j) => j.id === after) + 1
    const page = jobs.slice(start, start + limit)
    send(200, { object: "list", data: page, has_more: start + limit < jobs.length })
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
        completions,
        connections: () => connections,
        close: () => new Promise((done) => server.close(() => done()))
      })
    })
  })
}
