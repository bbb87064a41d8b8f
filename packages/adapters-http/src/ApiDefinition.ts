/**
 * The entry `@gateway-control/adapters-http/api`: the HTTP contract alone, for clients. It holds the API
 * definition (`GatewayApi`, the whole contract; `ServedApi`, what HttpApi serves), the request and response
 * schemas of every group, the error envelope's classes and the security scheme's declaration, and nothing
 * that runs on the server: no handlers, no key check, no edge. A test keeps its import graph that way
 * (domain/test/Architecture.test.ts).
 */
export * from "./Api.ts"
export {
  BadGateway,
  BadRequest,
  CommonErrors,
  ConflictError,
  ErrorDetail,
  ForbiddenError,
  GatewayTimeout,
  NotFoundError,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized
} from "./ApiErrors.ts"
export { InstantQuery, RequestInputRules } from "./InputRules.ts"
export { API_KEY_HEADER, ApiKeyAuth } from "./Security.ts"
