/**
 * An MCP server on 127.0.0.1 that says whatever a test tells it to: a hand-written Streamable HTTP server
 * (JSON answers, no sessions) whose answers are raw text, so that it can send what no SDK server would: NUL
 * and lone surrogates in names and messages, huge strings, deep JSON, invalid JSON, wrong types. Upstream
 * text is untrusted input; these are the answers the gateway must survive.
 */
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"

/** What the server answers: for every request a raw failure, or per method the raw JSON-RPC result. */
export interface HostileBehaviour {
  /** Every request is answered with this status and body (an error page, say). */
  readonly failWith?: { readonly status: number; readonly body: string } | undefined
  /**
   * The raw text of the `result` of each list method (`tools/list`, `prompts/list`, `resources/list`,
   * `resources/templates/list`); a method not named lists nothing. Not JSON-checked: it may be anything.
   */
  readonly results?: Readonly<Record<string, string>> | undefined
  /** The raw text of the whole answer to each list method, replacing the JSON-RPC envelope: invalid JSON, say. */
  readonly answers?: Readonly<Record<string, string>> | undefined
}

export interface HostileMcpServer {
  /** `127.0.0.1:<port>`, as TRUSTED_CUSTOM_HOSTS lists it. */
  readonly host: string
  /** The Streamable HTTP endpoint. */
  readonly url: string
  behaviour: HostileBehaviour
  /** Requests received so far. */
  readonly requests: () => number
  readonly close: () => Promise<void>
}

const EMPTY_LISTS: Readonly<Record<string, string>> = {
  "tools/list": "{\"tools\":[]}",
  "prompts/list": "{\"prompts\":[]}",
  "resources/list": "{\"resources\":[]}",
  "resources/templates/list": "{\"resourceTemplates\":[]}"
}

const bodyOf = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

export const startHostileMcpServer = async (behaviour: HostileBehaviour = {}): Promise<HostileMcpServer> => {
  const state = { behaviour, requests: 0 }
  const http = createServer(async (request, response) => {
    state.requests++
    const text = await bodyOf(request)
    const { answers = {}, failWith, results = {} } = state.behaviour
    if (failWith !== undefined) {
      response.writeHead(failWith.status, { "content-type": "text/plain; charset=utf-8" }).end(failWith.body)
      return
    }
    // No SSE stream and no sessions to end: both are optional for a Streamable HTTP server.
    if (request.method !== "POST") return void response.writeHead(405).end()
    let message: { id?: unknown; method?: unknown; params?: { protocolVersion?: unknown } }
    try {
      message = JSON.parse(text)
    } catch {
      return void response.writeHead(400).end()
    }
    if (message.id === undefined) return void response.writeHead(202).end()
    const id = JSON.stringify(message.id)
    const method = String(message.method)
    const send = (raw: string) => response.writeHead(200, { "content-type": "application/json" }).end(raw)
    if (method === "initialize") {
      return send(
        `{"jsonrpc":"2.0","id":${id},"result":${
          JSON.stringify({
            protocolVersion: message.params?.protocolVersion,
            capabilities: { tools: {}, prompts: {}, resources: {} },
            serverInfo: { name: "hostile", version: "6.6.6" }
          })
        }}`
      )
    }
    if (method === "ping") return send(`{"jsonrpc":"2.0","id":${id},"result":{}}`)
    const answer = answers[method]
    if (answer !== undefined) return send(answer)
    const result = results[method] ?? EMPTY_LISTS[method]
    if (result === undefined) {
      return send(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`)
    }
    return send(`{"jsonrpc":"2.0","id":${id},"result":${result}}`)
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as AddressInfo
  return {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/mcp`,
    get behaviour() {
      return state.behaviour
    },
    set behaviour(value: HostileBehaviour) {
      state.behaviour = value
    },
    requests: () => state.requests,
    close: async () => {
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  }
}
