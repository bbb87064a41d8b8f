/** What the edge knows about the current request, for the audit log. */
import { Context } from "effect"

export class RequestInfo extends Context.Service<
  RequestInfo,
  {
    readonly requestId: string
    readonly method: string
    /** Path and query, as received. */
    readonly uri: string
    /** The socket's address, or the address the trusted proxies name (ClientAddress.ts). */
    readonly clientIp: string | null
  }
>()("@gateway-control/http/RequestInfo") {}
