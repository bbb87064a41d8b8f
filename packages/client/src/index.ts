export * from "./GatewayControlClient.ts"
/** The error classes of the client's error channel, and the envelope they carry. */
export {
  BadGateway,
  BadRequest,
  ConflictError,
  ErrorDetail,
  ForbiddenError,
  GatewayTimeout,
  NotFoundError,
  ServiceUnavailable,
  Unauthorized
} from "@gateway-control/adapters-http/api"
