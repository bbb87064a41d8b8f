/**
 * A tiny OpenAI-compatible provider on 127.0.0.1 for tests: OpenAI's fine-tuning API (`GET /v1/fine_tuning/jobs`
 * over a fixed list of jobs; create, retrieve, cancel, a job's events and checkpoints) and `GET /v1/models`, with
 * behaviours chosen by the bearer key. It logs every request (method, path, Host, Authorization, body) and counts
 * the connections it accepts, so a test can show what reached it, with which key, and that nothing did.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"

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
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://fake")
    const body = await readBody(req)
    const method = req.method ?? "GET"
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
    if (url.pathname === "/v1/models" && method === "GET") {
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
        connections: () => connections,
        close: () => new Promise((done) => server.close(() => done()))
      })
    })
  })
}
