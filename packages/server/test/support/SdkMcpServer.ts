/**
 * Real MCP servers for the tests, built with the SDK's own server side and served on 127.0.0.1: Streamable
 * HTTP at `/mcp` (sessions, ended by the client's DELETE) and SSE at `/sse` (messages to `/messages`). The
 * `small` catalogue is an `McpServer` with two tools, one prompt and one resource; a `paged` one is a
 * low-level `Server` that lists N of each kind a few at a time, so a client must follow the cursors. Setting
 * `failing` makes every request answer 503: the server that fails; setting `hanging` leaves every request
 * unanswered.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import {
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import * as z from "zod"

export type Catalogue = "small" | { readonly paged: number; readonly pageSize: number }

/** The small catalogue: what a sync of it must find. */
export const SMALL_CATALOGUE = [
  { type: "prompt", name: "summarise" },
  { type: "resource", name: "file:///readme.md" },
  { type: "tool", name: "create_issue" },
  { type: "tool", name: "search" }
] as const

const smallServer = () => {
  const server = new McpServer({ name: "small", version: "1.2.3" })
  server.registerTool("search", {
    description: "Searches the issues",
    inputSchema: { query: z.string().describe("What to look for") },
    // An output schema makes the client build its JSON Schema validator when it lists the tools.
    outputSchema: { found: z.string() }
  }, ({ query }) => ({
    content: [{ type: "text", text: `found ${query}` }],
    structuredContent: { found: query }
  }))
  server.registerTool("create_issue", {
    description: "Creates an issue",
    inputSchema: { title: z.string(), body: z.string().optional() }
  }, ({ title }) => ({ content: [{ type: "text", text: `created ${title}` }] }))
  server.registerPrompt("summarise", {
    description: "Summarises a text",
    argsSchema: { text: z.string() }
  }, ({ text }) => ({ messages: [{ role: "user", content: { type: "text", text: `Summarise: ${text}` } }] }))
  server.registerResource("readme", "file:///readme.md", { description: "The readme" }, (uri) => ({
    contents: [{ uri: uri.href, text: "# Readme" }]
  }))
  return server.server
}

/** A page of `items` from `cursor` (an offset), with the cursor of the next page while there is one. */
const pageOf = <A>(items: ReadonlyArray<A>, cursor: string | undefined, size: number) => {
  const start = cursor === undefined ? 0 : Number(cursor)
  const next = start + size
  return { items: items.slice(start, next), nextCursor: next < items.length ? String(next) : undefined }
}

const pagedServer = (count: number, pageSize: number) => {
  const server = new Server({ name: "paged", version: "0.0.1" }, {
    capabilities: { tools: {}, prompts: {}, resources: {} }
  })
  const numbered = (prefix: string) =>
    Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, "0")}`)
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const page = pageOf(numbered("tool"), request.params?.cursor, pageSize)
    return {
      tools: page.items.map((name) => ({ name, inputSchema: { type: "object" as const, properties: {} } })),
      nextCursor: page.nextCursor
    }
  })
  server.setRequestHandler(ListPromptsRequestSchema, (request) => {
    const page = pageOf(numbered("prompt"), request.params?.cursor, pageSize)
    return { prompts: page.items.map((name) => ({ name })), nextCursor: page.nextCursor }
  })
  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    const page = pageOf(numbered("file:///doc"), request.params?.cursor, pageSize)
    return { resources: page.items.map((uri) => ({ uri, name: uri })), nextCursor: page.nextCursor }
  })
  server.setRequestHandler(ListResourceTemplatesRequestSchema, (request) => {
    const page = pageOf(numbered("file:///dir"), request.params?.cursor, pageSize)
    return {
      resourceTemplates: page.items.map((uri) => ({ uriTemplate: `${uri}/{name}`, name: uri })),
      nextCursor: page.nextCursor
    }
  })
  return server
}

export interface Initialization {
  readonly transport: "http" | "sse"
  readonly headers: IncomingHttpHeaders
}

export interface SdkMcpServer {
  /** `127.0.0.1:<port>`, as TRUSTED_CUSTOM_HOSTS lists it. */
  readonly host: string
  /** The Streamable HTTP endpoint. */
  readonly httpUrl: string
  /** The SSE endpoint. */
  readonly sseUrl: string
  /** Every `initialize` received, with the request's headers. */
  readonly initializations: Array<Initialization>
  /** Sessions not ended yet (Streamable HTTP and SSE). */
  readonly openSessions: () => number
  /** While true, every request answers 503. */
  failing: boolean
  /** While true, every request is left unanswered. */
  hanging: boolean
  readonly close: () => Promise<void>
}

const bodyOf = async (request: IncomingMessage): Promise<unknown> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString("utf8")
  return text.length === 0 ? undefined : JSON.parse(text)
}

const isInitialize = (body: unknown) =>
  typeof body === "object" && body !== null && "method" in body && body.method === "initialize"

export const startSdkMcpServer = async (catalogue: Catalogue = "small"): Promise<SdkMcpServer> => {
  const make = () => catalogue === "small" ? smallServer() : pagedServer(catalogue.paged, catalogue.pageSize)
  const streamable = new Map<string, StreamableHTTPServerTransport>()
  const sse = new Map<string, SSEServerTransport>()
  const initializations: Array<Initialization> = []
  const state = { failing: false, hanging: false }

  const http = createServer(async (request, response) => {
    try {
      if (state.hanging) return
      if (state.failing) {
        response.writeHead(503, { "content-type": "text/plain" }).end("down for maintenance")
        return
      }
      const url = new URL(request.url ?? "/", "http://127.0.0.1")
      const body = request.method === "POST" ? await bodyOf(request) : undefined
      if (url.pathname === "/mcp") {
        const sessionId = request.headers["mcp-session-id"]
        const existing = typeof sessionId === "string" ? streamable.get(sessionId) : undefined
        if (existing !== undefined) return await existing.handleRequest(request, response, body)
        if (!isInitialize(body)) {
          response.writeHead(400, { "content-type": "text/plain" }).end("no such session")
          return
        }
        initializations.push({ transport: "http", headers: request.headers })
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void streamable.set(id, transport),
          onsessionclosed: (id) => void streamable.delete(id)
        })
        await make().connect(transport)
        return await transport.handleRequest(request, response, body)
      }
      if (url.pathname === "/sse" && request.method === "GET") {
        const transport = new SSEServerTransport("/messages", response)
        sse.set(transport.sessionId, transport)
        response.on("close", () => sse.delete(transport.sessionId))
        await make().connect(transport)
        return
      }
      if (url.pathname === "/messages" && request.method === "POST") {
        const transport = sse.get(url.searchParams.get("sessionId") ?? "")
        if (transport === undefined) {
          response.writeHead(404, { "content-type": "text/plain" }).end("no such session")
          return
        }
        if (isInitialize(body)) initializations.push({ transport: "sse", headers: request.headers })
        return await transport.handlePostMessage(request, response, body)
      }
      response.writeHead(404, { "content-type": "text/plain" }).end("not found")
    } catch (error) {
      if (!response.headersSent) response.writeHead(500, { "content-type": "text/plain" })
      response.end(String(error))
    }
  })
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
  const { port } = http.address() as AddressInfo
  const base = `http://127.0.0.1:${port}`
  return {
    host: `127.0.0.1:${port}`,
    httpUrl: `${base}/mcp`,
    sseUrl: `${base}/sse`,
    initializations,
    openSessions: () => streamable.size + sse.size,
    get failing() {
      return state.failing
    },
    set failing(value: boolean) {
      state.failing = value
    },
    get hanging() {
      return state.hanging
    },
    set hanging(value: boolean) {
      state.hanging = value
    },
    close: async () => {
      await Promise.all([...streamable.values(), ...sse.values()].map((transport) => transport.close()))
      http.closeAllConnections()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  }
}
