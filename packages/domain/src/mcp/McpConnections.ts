/**
 * Talking to MCP servers: the port an adapter implements with an MCP client, the settings of those calls, and
 * the source of the secrets an integration's `secret_mappings` name. The domain decides where a connection may
 * go and with which headers (McpEndpoints.ts); the adapter only speaks the protocol.
 */
import { Context, Effect, type Option, type Redacted, Schema } from "effect"
import type { PinnedAddresses } from "../fine-tuning/CustomHosts.ts"
import { untrustedJson, untrustedOptionalText, untrustedText } from "../shared/UntrustedText.ts"
import type { McpTransport } from "./Mcp.ts"

/** Where and how one call connects. */
export interface McpEndpoint {
  readonly url: string
  readonly transport: typeof McpTransport.Type
  /** The integration's headers with its secret mappings resolved: sent, never logged. */
  readonly headers: Redacted.Redacted<Readonly<Record<string, string>>>
  /** The checked addresses the connection is pinned to; undefined for a trusted host. */
  readonly pinnedAddresses: PinnedAddresses
  /** How long the whole call (connection, handshake and requests) may take. */
  readonly timeoutMs: number
}

/** The server could not be reached, refused the handshake, or answered with an error. */
export class McpUnreachable extends Schema.TaggedError<McpUnreachable>()("McpUnreachable", {
  message: Schema.String,
  /** The HTTP status the server answered with, when it answered. */
  statusCode: Schema.NullOr(Schema.Int)
}) {}

export class McpTimedOut extends Schema.TaggedError<McpTimedOut>()("McpTimedOut", {
  timeoutMs: Schema.Number
}) {
  override get message() {
    return `The MCP server did not answer within ${this.timeoutMs} ms.`
  }
}

export type McpCallError = McpUnreachable | McpTimedOut

/** What `initialize` and `ping` came back with. */
export interface McpHandshake {
  /** The HTTP status the server answered the connection with (the SSE stream, or `initialize`). */
  readonly statusCode: number | null
}

export const CapabilityType = Schema.Literals(["tool", "prompt", "resource", "resource_template"])
export type CapabilityType = typeof CapabilityType.Type

/**
 * A capability as a server lists it. Tools and prompts are named by their names, resources by their URIs,
 * resource templates by their URI templates: what a client asks the server for.
 */
export interface DiscoveredCapability {
  readonly type: CapabilityType
  readonly name: string
  readonly description: string | null
  /** A tool's input schema; a prompt's arguments as a JSON Schema object. */
  readonly input_schema: Readonly<Record<string, unknown>> | null
}

export class McpConnections extends Context.Service<
  McpConnections,
  {
    /** Opens a session (`initialize`), sends `ping`, and closes it. */
    readonly probe: (endpoint: McpEndpoint) => Effect.Effect<McpHandshake, McpCallError>
    /**
     * Opens a session and lists the tools, prompts, resources and resource templates the server declares,
     * following every list's cursor to its end.
     */
    readonly listCapabilities: (
      endpoint: McpEndpoint
    ) => Effect.Effect<ReadonlyArray<DiscoveredCapability>, McpCallError>
  }
>()("@gateway-control/McpConnections") {}

/** Bounds of what a server says, in characters: an error message (an integration's `status_message`). */
export const MAX_UPSTREAM_MESSAGE = 1_000
/** A capability's name (a tool's or prompt's name, a resource's URI or URI template). */
export const MAX_CAPABILITY_NAME = 2_048
export const MAX_CAPABILITY_DESCRIPTION = 10_000
/** The text (keys and strings) of one capability's input schema. */
export const MAX_INPUT_SCHEMA_TEXT = 65_536
/** Capabilities one sync keeps: a server listing more is refused, not stored in part. */
export const MAX_CAPABILITIES = 10_000

const message = untrustedText(MAX_UPSTREAM_MESSAGE)
const capabilityName = untrustedText(MAX_CAPABILITY_NAME)
const capabilityDescription = untrustedOptionalText(MAX_CAPABILITY_DESCRIPTION)

/** An HTTP status as the server sent it, or null when it is none (the SDK says -1 for "no status"). */
const httpStatus = (code: number | null) =>
  code !== null && Number.isInteger(code) && code >= 100 && code <= 599 ? code : null

/** A call's error as the domain keeps it: the server's words in it are untrusted text. */
const untrustedError = (error: McpCallError): McpCallError =>
  error._tag === "McpTimedOut"
    ? error
    : new McpUnreachable({ message: message(error.message), statusCode: httpStatus(error.statusCode) })

const untrustedSchema = (schema: DiscoveredCapability["input_schema"]): DiscoveredCapability["input_schema"] => {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return null
  return untrustedJson(schema, MAX_INPUT_SCHEMA_TEXT) as Readonly<Record<string, unknown>>
}

/** A capability as the domain keeps it: its name, description and schema untrusted text. */
const untrustedCapability = (found: DiscoveredCapability): DiscoveredCapability => ({
  type: found.type,
  name: capabilityName(found.name),
  description: capabilityDescription(found.description),
  input_schema: untrustedSchema(found.input_schema)
})

/**
 * The port as every service uses it: everything a server said (names, descriptions, schemas, error messages)
 * made storable and bounded where it enters the domain (UntrustedText.ts), however the adapter behaves.
 */
export const untrustedConnections = (connections: McpConnections["Service"]): McpConnections["Service"] => ({
  probe: (endpoint) =>
    connections.probe(endpoint).pipe(
      Effect.map((handshake) => ({ statusCode: httpStatus(handshake.statusCode) })),
      Effect.mapError(untrustedError)
    ),
  listCapabilities: (endpoint) =>
    connections.listCapabilities(endpoint).pipe(
      Effect.mapError(untrustedError),
      Effect.flatMap((found) =>
        found.length > MAX_CAPABILITIES
          ? Effect.fail(
            new McpUnreachable({
              message: `The MCP server listed ${found.length} capabilities; at most ${MAX_CAPABILITIES} are kept.`,
              statusCode: null
            })
          )
          : Effect.succeed(found.map(untrustedCapability))
      )
    )
})

/** `McpConnections` through `untrustedConnections`: what the services yield instead of the raw port. */
export const upstreamConnections = Effect.map(Effect.service(McpConnections), untrustedConnections)

export interface McpSettingsShape {
  /** How long one MCP call may take: `MCP_TIMEOUT_MS`. */
  readonly timeoutMs: number
  /** How often the health checker runs; 0 turns it off: `MCP_HEALTH_INTERVAL_MS`. */
  readonly healthIntervalMs: number
  /** Failed checks in a row that make an integration unhealthy: `MCP_UNHEALTHY_AFTER`. */
  readonly unhealthyAfter: number
}

export const DEFAULT_MCP_SETTINGS: McpSettingsShape = { timeoutMs: 10_000, healthIntervalMs: 60_000, unhealthyAfter: 3 }

export const McpSettings = Context.Reference<McpSettingsShape>("@gateway-control/domain/McpSettings", {
  defaultValue: () => DEFAULT_MCP_SETTINGS
})

/** A secret an integration's `secret_mappings` may name, held by the operator outside the store. */
export interface McpSecret {
  /** A string, or a JSON object whose fields `secret_key` picks. */
  readonly value: Redacted.Redacted<string | Readonly<Record<string, unknown>>>
  /**
   * The only hosts (`host` or `host:port`) the secret may be sent to: an integration elsewhere cannot
   * use it to carry the secret off.
   */
  readonly hosts: ReadonlyArray<string>
}

/** Where secret references resolve: in the process, from what the operator configured. */
export class McpSecrets extends Context.Service<
  McpSecrets,
  { readonly resolve: (referenceId: string) => Effect.Effect<Option.Option<McpSecret>> }
>()("@gateway-control/McpSecrets") {}
