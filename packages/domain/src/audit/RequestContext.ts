/**
 * Where the current call came from, for its audit record. Every edge provides it: the HTTP adapter from the
 * request (method, path, request id, client address), the CLI as `cli` with the operator's OS user, and an
 * embedding application its own values. An embedder that provides nothing gets `EMBEDDED_CALL`: the record
 * then says the call was made in process, and gets a request id of its own.
 */
import { Context } from "effect"

export interface RequestContextShape {
  /** How the call arrived: its records' `method` is the HTTP method, or `EMBEDDED` / `CLI`. */
  readonly channel: "http" | "embedded" | "cli"
  /** The edge's id for the call; null lets each audited use case take a fresh one. */
  readonly requestId: string | null
  /** The HTTP method; ignored for other channels. */
  readonly method: string
  /** The request's path and query over HTTP; a command line or the embedder's label otherwise. */
  readonly uri: string
  /** The socket's address, or the one trusted proxies name; over the CLI, null. */
  readonly clientIp: string | null
  /** Who ran the CLI command (the OS user); null elsewhere. */
  readonly operator: string | null
}

export const EMBEDDED_CALL: RequestContextShape = {
  channel: "embedded",
  requestId: null,
  method: "EMBEDDED",
  uri: "",
  clientIp: null,
  operator: null
}

export const RequestContext: Context.Reference<RequestContextShape> = Context.Reference<RequestContextShape>(
  "@gateway-control/RequestContext",
  { defaultValue: () => EMBEDDED_CALL }
)

/** The context of a CLI command run by `operator`. */
export const cliCall = (command: string, operator: string | null): RequestContextShape => ({
  channel: "cli",
  requestId: null,
  method: "CLI",
  uri: `gateway-control ${command}`,
  clientIp: null,
  operator
})
