/**
 * A request body as text, read straight from Node's `IncomingMessage` when the server runs on Node.
 * The platform reader goes through a cached Effect, a Stream and a TextDecoder per request; on the render
 * path that was the largest single cost after the socket itself. Limits and errors stay those of the edge:
 * over `maxBytes` answers 413, an unreadable body 400. Other platforms, and `Expect: 100-continue` (the
 * platform sends the interim 100 when its own reader starts), use the platform reader.
 */
import { Effect } from "effect"
import type { HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { IncomingMessage } from "node:http"
import { errorResponse, payloadTooLarge } from "../ApiErrors.ts"

const unreadable = () => errorResponse(400, "invalid_json", "The request body could not be read.")

const nodeSource = (request: HttpServerRequest.HttpServerRequest): IncomingMessage | undefined => {
  const source = (request as { readonly source?: unknown }).source
  return source instanceof IncomingMessage && request.headers.expect === undefined ? source : undefined
}

const decode = (chunks: ReadonlyArray<Buffer>, size: number) => {
  const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, size).toString("utf8")
  // TextDecoder, which the platform reader uses, drops a byte order mark; so do we.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

/** The body text, or the envelope response to answer instead. */
export const readBodyText = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<string | HttpServerResponse.HttpServerResponse, HttpServerError.HttpServerError> => {
  const source = nodeSource(request)
  if (source === undefined) return request.text
  if (source.readableEnded) return Effect.succeed("")
  return Effect.callback<string | HttpServerResponse.HttpServerResponse>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        // The server adapter drains or destroys the unread rest once the response is written.
        cleanup()
        source.pause()
        resume(Effect.succeed(payloadTooLarge(maxBytes)))
      } else {
        chunks.push(chunk)
      }
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(decode(chunks, size)))
    }
    const onError = () => {
      cleanup()
      resume(Effect.succeed(unreadable()))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    return Effect.sync(cleanup)
  })
}
