/**
 * Requests Node refuses before any route sees them (headers past `--max-http-header-size`, malformed HTTP)
 * answer in the project's error envelope too, instead of Node's bare status line with an empty body.
 */
import type { Server } from "node:http"
import type { Duplex } from "node:stream"

const REFUSALS: Readonly<Record<string, { status: number; reason: string; code: string; message: string }>> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: "Request Header Fields Too Large",
    code: "headers_too_large",
    message: "The request's headers are larger than this server accepts (16 KiB in all)."
  }
}

const BAD_REQUEST = {
  status: 400,
  reason: "Bad Request",
  code: "invalid_request",
  message: "The request is not valid HTTP/1.1."
}

const answer = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (!socket.writable) return void socket.destroy()
  const refusal = REFUSALS[error.code ?? ""] ?? BAD_REQUEST
  // Both refusals are of the request's making: `type` as ApiErrors.ts's `errorTypeOf` names them.
  const body = JSON.stringify({
    success: false,
    error: { code: refusal.code, type: "invalid_request_error", message: refusal.message, param: null }
  })
  socket.end(
    `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
  )
}

/** Installs the envelope answer for client errors on a Node HTTP server. */
export const answerClientErrorsInEnvelope = (server: Server): Server => server.on("clientError", answer)
