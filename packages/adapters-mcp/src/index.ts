export type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
export * from "./McpClientConnections.ts"
