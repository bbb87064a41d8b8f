/**
 * `McpConnections` on the official MCP SDK's client: a session per call over the Streamable HTTP or the SSE
 * transport, as the integration says, on a fetch the server supplies (pinned to the checked addresses), under
 * the call's timeout. The headers travel in the transport's request options and appear in no error.
 *
 * The SDK is loaded on the first session, not at start: it and its schema libraries (zod, ajv) held ~10 MB
 * of each process's memory, most of which never talks to an MCP server.
 */
import {
  type CapabilityType,
  type DiscoveredCapability,
  McpConnections,
  type McpEndpoint,
  McpTimedOut,
  McpUnreachable,
  type PinnedAddresses
} from "@gateway-control/domain"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import { Context, Effect, Layer, Option, Redacted, type Scope, Tracer } from "effect"
import * as HttpTraceContext from "effect/http/HttpTraceContext"

/** The fetch MCP sessions use (the server builds it on undici, pinned like provider calls). */
export class McpFetch extends Context.Service<
  McpFetch,
  {
    /**
     * A fetch for one session, released with the scope. With `pinnedAddresses`, its connections go only to
     * those addresses, whatever DNS answers meanwhile; the Host header and TLS name stay the URL's.
     */
    readonly fetchFor: (pinnedAddresses: PinnedAddresses) => Effect.Effect<FetchLike, never, Scope.Scope>
  }
>()("@gateway-control/adapters-mcp/McpFetch") {}

/** How the gateway introduces itself in `initialize`. */
export const CLIENT_INFO = { name: "gateway-control", version: "0.1.0" } as const

/** How long ending a Streamable HTTP session may take before the transport is closed regardless. */
const SESSION_END_MS = 1_000

/** Pages of one list a session follows before it stops: a server whose cursors never end cannot hold it. */
const MAX_PAGES = 1_000

/** What went wrong, in words that carry no header value: the SDK's message and the network's cause. */
const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error
    ? ` (${"code" in error.cause && typeof error.cause.code === "string" ? error.cause.code : error.cause.message})`
    : ""
  return `${error.message}${cause}`
}

/**
 * The W3C `traceparent` of the session's span, so that the MCP server can continue the caller's trace: only
 * when a tracer that exports is installed (the native tracer's spans go nowhere: tracing is off) and the span
 * is sampled. Only this header, in Effect's own encoding (the one its HTTP client sends providers): never `b3`,
 * nothing else of the span.
 */
const currentTraceparent: Effect.Effect<string | undefined> = Effect.withFiber((fiber) =>
  fiber.getRef(Tracer.Tracer) === Tracer.nativeTracer
    ? Effect.succeed(undefined)
    : Effect.map(Effect.option(Effect.currentSpan), (span) =>
      Option.isSome(span) && span.value.sampled
        ? HttpTraceContext.toHeaders(span.value)["traceparent"]
        : undefined)
)

/** `init` with `traceparent` added, unless the integration's own headers already name one. */
const withTraceparent = (init: RequestInit | undefined, traceparent: string): RequestInit => {
  const headers = new Headers(init?.headers)
  if (!headers.has("traceparent")) headers.set("traceparent", traceparent)
  return { ...init, headers }
}

/** The SDK's client and transports, loaded once, on the first session. */
const loadSdk = () =>
  Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/client/sse.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/validation/ajv-provider.js")
  ]).then(([client, sse, streamableHttp, ajv]) => ({ ...client, ...sse, ...streamableHttp, ...ajv }))

type Sdk = Awaited<ReturnType<typeof loadSdk>>

/**
 * A client's JSON Schema validator, made on its first use. The SDK otherwise builds an Ajv instance with its
 * formats for every client (~0.1 ms and its garbage), though only a tool's output schema needs one: a health
 * check, a discovery or a ping never does, and the health checker makes a client for every check. One per
 * client, as the SDK's own, so no server's schema `$id` is ever seen by another server's validator.
 */
const validatorOnFirstUse = (sdk: Sdk): jsonSchemaValidator => {
  let validator: jsonSchemaValidator | undefined
  return { getValidator: (schema) => (validator ??= new sdk.AjvJsonSchemaValidator()).getValidator(schema) }
}

const unreachable = (sdk: Sdk, error: unknown, lastStatus: number | null) => {
  const statusCode = (error instanceof sdk.StreamableHTTPError || error instanceof sdk.SseError) &&
      error.code !== undefined
    ? error.code
    : lastStatus
  const status = statusCode === null || (statusCode >= 200 && statusCode < 300) ? "" : ` (HTTP ${statusCode})`
  return new McpUnreachable({ message: `The MCP server could not be used${status}: ${describe(error)}`, statusCode })
}

interface Page {
  readonly items: ReadonlyArray<DiscoveredCapability>
  readonly nextCursor?: string | undefined
}

type RequestOptions = { readonly signal: AbortSignal; readonly timeout: number }

/** Every page of a cursor-paged list. */
const allPages = async (list: (cursor: string | undefined) => Promise<Page>) => {
  const found: Array<DiscoveredCapability> = []
  const seen = new Set<string>()
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await list(cursor)
    found.push(...answer.items)
    cursor = answer.nextCursor
    if (cursor === undefined || seen.has(cursor)) break
    seen.add(cursor)
  }
  return found
}

const capability = (
  type: CapabilityType,
  name: string,
  description: string | undefined,
  inputSchema: Readonly<Record<string, unknown>> | null = null
): DiscoveredCapability => ({ type, name, description: description ?? null, input_schema: inputSchema })

/** A prompt's arguments as the JSON Schema of an object of strings. */
const argumentsSchema = (
  args: ReadonlyArray<{ readonly name: string; readonly description?: string; readonly required?: boolean }> | undefined
) =>
  args === undefined || args.length === 0 ? null : {
    type: "object",
    properties: Object.fromEntries(
      args.map((
        arg
      ) => [
        arg.name,
        arg.description === undefined ? { type: "string" } : { type: "string", description: arg.description }
      ])
    ),
    required: args.filter((arg) => arg.required === true).map((arg) => arg.name)
  }

/** The four lists, each under the server capability that declares it, as capabilities. */
const LISTS: ReadonlyArray<{
  readonly declaredBy: "tools" | "prompts" | "resources"
  readonly page: (client: Client, params: { cursor: string } | undefined, options: RequestOptions) => Promise<Page>
}> = [
  {
    declaredBy: "tools",
    page: (client, params, options) =>
      client.listTools(params, options).then(({ nextCursor, tools }) => ({
        nextCursor,
        items: tools.map((tool) => capability("tool", tool.name, tool.description ?? tool.title, tool.inputSchema))
      }))
  },
  {
    declaredBy: "prompts",
    page: (client, params, options) =>
      client.listPrompts(params, options).then(({ nextCursor, prompts }) => ({
        nextCursor,
        items: prompts.map((prompt) =>
          capability("prompt", prompt.name, prompt.description ?? prompt.title, argumentsSchema(prompt.arguments))
        )
      }))
  },
  {
    declaredBy: "resources",
    page: (client, params, options) =>
      client.listResources(params, options).then(({ nextCursor, resources }) => ({
        nextCursor,
        items: resources.map((r) => capability("resource", r.uri, r.description ?? r.title ?? r.name))
      }))
  },
  {
    declaredBy: "resources",
    page: (client, params, options) =>
      client.listResourceTemplates(params, options).then(({ nextCursor, resourceTemplates }) => ({
        nextCursor,
        items: resourceTemplates.map((t) =>
          capability("resource_template", t.uriTemplate, t.description ?? t.title ?? t.name)
        )
      }))
  }
]

/** Everything the server declares it has, following every cursor. */
const listAll = async (client: Client, options: RequestOptions) => {
  const declared = client.getServerCapabilities() ?? {}
  const found: Array<DiscoveredCapability> = []
  for (const { declaredBy, page } of LISTS) {
    if (declared[declaredBy] === undefined) continue
    found.push(...await allPages((cursor) => page(client, cursor === undefined ? undefined : { cursor }, options)))
  }
  return found
}

export const layerMcpConnections: Layer.Layer<McpConnections, never, McpFetch> = Layer.effect(
  McpConnections,
  Effect.gen(function*() {
    const fetches = yield* McpFetch
    const sdk = yield* Effect.cached(Effect.promise(loadSdk))

    /** A session: `initialize`, then `use`, then the session ended and the transport closed, within the timeout. */
    const session = <A>(
      endpoint: McpEndpoint,
      use: (client: Client, options: RequestOptions) => Promise<A>
    ) =>
      Effect.gen(function*() {
        const loaded = yield* sdk
        const { Client, SSEClientTransport, StreamableHTTPClientTransport } = loaded
        const pinned = yield* fetches.fetchFor(endpoint.pinnedAddresses)
        const traceparent = yield* currentTraceparent
        // The first answer is the connection's (the SSE stream, or the answer to initialize); the last, the one
        // a failure is best explained by.
        let firstStatus: number | null = null
        let lastStatus: number | null = null
        const fetch: FetchLike = async (url, init) => {
          const response = await pinned(url, traceparent === undefined ? init : withTraceparent(init, traceparent))
          firstStatus ??= response.status
          lastStatus = response.status
          return response
        }
        const url = new URL(endpoint.url)
        const requestInit = { headers: Redacted.value(endpoint.headers) }
        const transport: Transport = endpoint.transport === "sse"
          ? new SSEClientTransport(url, { fetch, requestInit })
          : new StreamableHTTPClientTransport(url, {
            fetch,
            requestInit,
            reconnectionOptions: {
              maxRetries: 0,
              initialReconnectionDelay: 1_000,
              maxReconnectionDelay: 1_000,
              reconnectionDelayGrowFactor: 1
            }
          })
        const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: validatorOnFirstUse(loaded) })
        // Ends the session (a DELETE for Streamable HTTP, which servers may refuse) and closes the transport.
        // A server that does not answer the DELETE is not waited for: closing aborts what is still in flight.
        const ending = transport instanceof StreamableHTTPClientTransport
          ? Effect.promise(() => transport.terminateSession().catch(() => undefined)).pipe(
            Effect.timeoutOrElse({ duration: Math.min(SESSION_END_MS, endpoint.timeoutMs), orElse: () => Effect.void })
          )
          : Effect.void
        yield* Effect.addFinalizer(() =>
          Effect.andThen(ending, Effect.promise(() => client.close().catch(() => undefined)))
        )
        const call = <B>(run: (signal: AbortSignal) => Promise<B>) =>
          Effect.tryPromise({ try: run, catch: (error) => unreachable(loaded, error, lastStatus) })
        yield* call((signal) => client.connect(transport, { signal, timeout: endpoint.timeoutMs }))
        const result = yield* call((signal) => use(client, { signal, timeout: endpoint.timeoutMs }))
        return { result, statusCode: firstStatus }
      }).pipe(
        Effect.scoped,
        Effect.timeoutOrElse({
          duration: endpoint.timeoutMs,
          orElse: () => Effect.fail(new McpTimedOut({ timeoutMs: endpoint.timeoutMs }))
        }),
        Effect.withSpan("McpConnections.session", { attributes: { "server.address": new URL(endpoint.url).host } })
      )

    return McpConnections.of({
      probe: (endpoint) =>
        Effect.map(session(endpoint, (client, options) => client.ping(options)), ({ statusCode }) => ({ statusCode })),
      listCapabilities: (endpoint) => Effect.map(session(endpoint, listAll), ({ result }) => result)
    })
  })
)
