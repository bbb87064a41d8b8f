/**
 * Traces over OTLP/HTTP: a `serve` process with `OTEL_EXPORTER_OTLP_ENDPOINT` set sends its spans to a receiver
 * on loopback. A prompt create that came with a W3C `traceparent` is one trace, under the client's span: the
 * request's server span, the use case's span, and the store's SQL statements; the request's log line names the
 * trace. An MCP server called during a traced request gets the request's trace as `traceparent`, and nothing
 * when the request's trace is not sampled or tracing is off. Without the variable nothing is sent.
 */
import { randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshDatabase, postgresUrl } from "./support/Databases.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { type ServerProcess, startServerProcess } from "./support/ServerProcess.ts"

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
}

/** An OTLP/HTTP traces receiver (JSON) on loopback, keeping every span it is sent. */
const startReceiver = async () => {
  const spans: Array<OtlpSpan> = []
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      if (request.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }>
        }
        for (const resource of body.resourceSpans) {
          for (const scope of resource.scopeSpans) spans.push(...scope.spans)
        }
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const waitFor = async <A>(find: () => A | undefined, withinMs = 30_000): Promise<A> => {
  const deadline = Date.now() + withinMs
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error("not found in time")
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe.skipIf(postgresUrl === undefined)("OTLP traces from serve on PostgreSQL", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let traced: ServerProcess
  let untraced: ServerProcess
  let mcp: SdkMcpServer
  const cleanups: Array<() => Promise<unknown> | unknown> = []

  beforeAll(async () => {
    receiver = await startReceiver()
    cleanups.push(receiver.close)
    mcp = await startSdkMcpServer()
    cleanups.push(() => mcp.close())
    const database = await freshDatabase(postgresUrl!)
    cleanups.push(database.drop)
    const env = {
      GATEWAY_STORE: "postgres",
      DATABASE_URL: database.url,
      GATEWAY_MASTER_KEY: randomBytes(32).toString("base64"),
      TRUSTED_CUSTOM_HOSTS: mcp.host
    }
    traced = await startServerProcess({
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "gateway-control-test"
    })
    cleanups.push(() => traced.child.kill("SIGKILL"))
    untraced = await startServerProcess(env)
    cleanups.push(() => untraced.child.kill("SIGKILL"))
  }, 120_000)

  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })

  const createPrompt = async (server: ServerProcess, traceparent: string) => {
    const key = traced.adminKey!
    const workspaces = await fetch(`${server.baseUrl}/v1/workspaces`, { headers: { "x-service-api-key": key } })
    const workspaceId = ((await workspaces.json()) as { data: Array<{ id: string }> }).data[0]!.id
    const created = await fetch(`${server.baseUrl}/v1/prompts`, {
      method: "POST",
      headers: { "x-service-api-key": key, "content-type": "application/json", traceparent },
      body: JSON.stringify({
        name: `Traced ${randomBytes(4).toString("hex")}`,
        workspace_id: workspaceId,
        string: "Hi",
        model: "m"
      })
    })
    expect(created.status).toBe(201)
    return (await created.json()) as { id: string }
  }

  /** The audit record of the prompt's creation, read back through the API. */
  const creationRecordOf = async (server: ServerProcess, promptId: string) => {
    const answer = await fetch(`${server.baseUrl}/v1/audit-logs?resource_type=prompt&page_size=100`, {
      headers: { "x-service-api-key": traced.adminKey! }
    })
    expect(answer.status).toBe(200)
    const { records } = (await answer.json()) as {
      records: Array<{ resource_id: string | null; action: string; trace_id: string | null }>
    }
    const record = records.find((r) => r.resource_id === promptId && r.action === "create")
    expect(record, `no create record of ${promptId}`).toBeDefined()
    return record!
  }

  it("sends one trace of a prompt create under the client's span: route, use case and store", async () => {
    const traceId = randomBytes(16).toString("hex")
    const parentId = randomBytes(8).toString("hex")
    const { id } = await createPrompt(traced, `00-${traceId}-${parentId}-01`)
    // The audit record names the same trace.
    expect((await creationRecordOf(traced, id)).trace_id).toBe(traceId)
    const inTrace = () => receiver.spans.filter((span) => span.traceId === traceId)
    const server = await waitFor(() => inTrace().find((span) => span.parentSpanId === parentId))
    // Effect's HTTP server span (kind 2: server), the client's span its parent.
    expect(server.kind).toBe(2)
    const useCase = await waitFor(() => inTrace().find((span) => span.name === "prompts.create"))
    await waitFor(() => inTrace().find((span) => span.name.startsWith("sql.")))
    // One trace: every span of it hangs from the server span, up to the client's.
    const byId = new Map(inTrace().map((span) => [span.spanId, span]))
    const rootOf = (span: OtlpSpan): string | undefined => {
      let current: OtlpSpan | undefined = span
      while (current !== undefined && current.parentSpanId !== undefined && byId.has(current.parentSpanId)) {
        current = byId.get(current.parentSpanId)
      }
      return current?.parentSpanId
    }
    expect(rootOf(useCase)).toBe(parentId)
    for (const span of inTrace()) expect(rootOf(span)).toBe(parentId)
    // The request's log line names the trace.
    await waitFor(() => traced.stderr().includes(traceId) ? true : undefined)
  })

  /** An MCP server registered in the process's workspace, ready for `POST /v1/mcp-servers/{id}/test`. */
  const registerMcpServer = async (server: ServerProcess) => {
    const send = (path: string, body: unknown) =>
      fetch(`${server.baseUrl}${path}`, {
        method: "POST",
        headers: { "x-service-api-key": traced.adminKey!, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
    const suffix = randomBytes(4).toString("hex")
    const integration = await send("/v1/mcp-integrations", {
      name: `Traced ${suffix}`,
      url: mcp.httpUrl,
      transport: "http",
      auth_type: "headers",
      configurations: { headers: { "X-Team": "blue" } }
    })
    expect(integration.status).toBe(201)
    const workspaces = await fetch(`${server.baseUrl}/v1/workspaces`, {
      headers: { "x-service-api-key": traced.adminKey! }
    })
    const made = await send("/v1/mcp-servers", {
      name: `Traced server ${suffix}`,
      slug: `traced-${suffix}`,
      mcp_integration_id: ((await integration.json()) as { id: string }).id,
      workspace_id: ((await workspaces.json()) as { data: Array<{ id: string }> }).data[0]!.id
    })
    expect(made.status).toBe(201)
    const { id } = (await made.json()) as { id: string }
    /** Tests the server in a request with this `traceparent`; the headers of the sessions it opened. */
    return async (traceparent: string) => {
      const before = mcp.initializations.length
      const tested = await fetch(`${server.baseUrl}/v1/mcp-servers/${id}/test`, {
        method: "POST",
        headers: { "x-service-api-key": traced.adminKey!, traceparent }
      })
      expect(tested.status).toBe(200)
      expect(await tested.json()).toMatchObject({ success: true })
      return mcp.initializations.slice(before).map((i) => i.headers)
    }
  }

  it("sends the request's trace to the MCP servers it calls as traceparent, when the trace is sampled", async () => {
    const test = await registerMcpServer(traced)
    const traceId = randomBytes(16).toString("hex")
    const parentId = randomBytes(8).toString("hex")
    const seen = await test(`00-${traceId}-${parentId}-01`)
    // Health checks may open sessions of their own meanwhile, under traces of their own.
    const ours = seen.filter((headers) => headers.traceparent?.includes(traceId))
    expect(ours).toHaveLength(1)
    const [, sentTrace, sentSpan, flags] = String(ours[0].traceparent).split("-")
    expect(sentTrace).toBe(traceId)
    expect(flags).toBe("01")
    // The parent the MCP server sees is a span of the request's trace, exported like the others.
    const session = await waitFor(() => receiver.spans.find((span) => span.spanId === sentSpan))
    expect(session.traceId).toBe(traceId)
    expect(session.name).toBe("McpConnections.session")
    // Only traceparent joins the integration's own headers.
    expect(ours[0]["x-team"]).toBe("blue")
    expect(ours[0].b3).toBeUndefined()

    // A trace the caller did not sample (parent-based sampling follows it) is not propagated.
    const unsampled = randomBytes(16).toString("hex")
    const quiet = await test(`00-${unsampled}-${randomBytes(8).toString("hex")}-00`)
    expect(quiet.length).toBeGreaterThan(0)
    expect(quiet.some((headers) => headers.traceparent?.includes(unsampled))).toBe(false)
  })

  it("sends no traceparent to MCP servers from a process without tracing", async () => {
    const test = await registerMcpServer(untraced)
    const seen = await test(`00-${randomBytes(16).toString("hex")}-${randomBytes(8).toString("hex")}-01`)
    expect(seen.length).toBeGreaterThan(0)
    for (const headers of seen) {
      expect(headers.traceparent).toBeUndefined()
      expect(headers["x-team"]).toBe("blue")
    }
  })

  it("sends nothing from a process without OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const traceId = randomBytes(16).toString("hex")
    const { id } = await createPrompt(untraced, `00-${traceId}-${randomBytes(8).toString("hex")}-01`)
    // Nor does its audit record name a trace no one can look up.
    expect((await creationRecordOf(untraced, id)).trace_id).toBeNull()
    // The traced process exports its batches in well under this; the untraced one has no exporter at all.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(receiver.spans.filter((span) => span.traceId === traceId)).toEqual([])
    expect(untraced.stderr()).not.toContain(traceId)
  })
})
