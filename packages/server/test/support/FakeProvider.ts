/**
 * A tiny OpenAI-compatible provider on 127.0.0.1 for tests: `GET /v1/fine_tuning/jobs` over a fixed list
 * of jobs, with behaviours chosen by the bearer key. It counts the connections it accepts, so a test can
 * show that nothing reached it.
 */
import { createServer, type IncomingMessage, type Server } from "node:http"

export interface FakeProvider {
  readonly baseUrl: string
  readonly host: string
  readonly port: number
  readonly requests: Array<{
    readonly url: string
    readonly host: string | undefined
    readonly authorization: string | undefined
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
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://fake")
    requests.push({ url: req.url ?? "", host: req.headers.host, authorization: req.headers.authorization })
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers })
      res.end(typeof body === "string" ? body : JSON.stringify(body))
    }
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
        connections: () => connections,
        close: () => new Promise((done) => server.close(() => done()))
      })
    })
  })
}
