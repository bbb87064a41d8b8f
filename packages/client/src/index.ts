export * from "./GatewayControlClient.ts"
/**
 * The contract the client is derived from: the error classes of its error channel (`NotFoundError`, ...), and the
 * request and response schemas (`CreatePrompt`, ...) whose types its methods take and answer.
 */
export * from "@gateway-control/adapters-http/api"
