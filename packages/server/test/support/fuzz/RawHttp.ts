/**
 * Sending fuzzed requests exactly as built (node:http, so that `..` and bad escapes in paths are not
 * normalised away as fetch would), and judging the answers by the project's error contract.
 */
import { Agent, request as httpRequest } from "node:http"
import type { FuzzRequest } from "./FuzzRequests.ts"

export interface Answer {
  readonly status: number
  readonly contentType: string | undefined
  readonly body: string
}

/** Longer than any answer should take; a request that hangs is a finding too. */
const TIMEOUT_MS = 20_000

export interface RawClient {
  readonly send: (request: FuzzRequest) => Promise<Answer>
  /** Closes the kept-alive connection, so that the server can stop. */
  readonly close: () => void
}

export const rawClient = (baseUrl: string): RawClient => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const url = new URL(baseUrl)
  return { send: (request) => sendRaw(agent, url, request), close: () => agent.destroy() }
}

const sendRaw = (agent: Agent, url: URL, request: FuzzRequest): Promise<Answer> => {
  const headers: Record<string, string> = { ...request.headers }
  if (request.body !== undefined) headers["content-length"] = String(Buffer.byteLength(request.body))
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      agent,
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: `${request.path}${request.query === "" ? "" : `?${request.query}`}`,
      headers,
      timeout: TIMEOUT_MS
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("error", reject)
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers["content-type"],
          body: Buffer.concat(chunks).toString("utf8")
        }))
    })
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)))
    outgoing.on("error", reject)
    outgoing.end(request.body)
  })
}

const SNAKE_CASE = /^[a-z][a-z0-9_]*$/

const envelopeProblem = (body: string): string | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return "its body is not JSON"
  }
  if (typeof parsed !== "object" || parsed === null) return "its body is not a JSON object"
  const { error, success } = parsed as { success?: unknown; error?: unknown }
  if (success !== false) return "success is not false"
  if (typeof error !== "object" || error === null) return "error is not an object"
  const { code, message, param } = error as { code?: unknown; message?: unknown; param?: unknown }
  if (typeof code !== "string" || !SNAKE_CASE.test(code)) return "error.code is not a snake_case string"
  if (typeof message !== "string" || message === "") return "error.message is not a non-empty string"
  if (param !== null && typeof param !== "string") return "error.param is neither a string nor null"
  return undefined
}

/**
 * What is wrong with an answer, if anything: a 5xx, or a 4xx outside the envelope
 * `{"success": false, "error": {"code", "message", "param"}}` served as JSON.
 */
export const problemWith = (answer: Answer): string | undefined => {
  if (answer.status >= 500) return `answered ${answer.status}`
  if (answer.status < 400) return undefined
  if (answer.contentType === undefined || !/^application\/json\b/i.test(answer.contentType)) {
    return `answered ${answer.status} as ${answer.contentType ?? "no content-type"}, not JSON`
  }
  const problem = envelopeProblem(answer.body)
  return problem === undefined ? undefined : `answered ${answer.status} outside the envelope: ${problem}`
}

export const describeAnswer = (answer: Answer) =>
  `${answer.status} ${answer.contentType ?? "(no content-type)"} ${
    answer.body.length > 300 ? `${answer.body.slice(0, 300)}…` : answer.body
  }`
