/**
 * What Node refuses before routing (oversized headers, malformed HTTP) still answers in the error envelope.
 */
import { createServer, type Server } from "node:http"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerClientErrorsInEnvelope } from "../src/internal/ClientErrors.ts"

const rawExchange = (port: number, request: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.end(request))
    let text = ""
    socket.on("data", (chunk) => (text += chunk.toString("utf8")))
    socket.on("close", () => resolve(text))
    socket.on("error", reject)
  })

const parse = (raw: string) => {
  const [head, body] = raw.split("\r\n\r\n")
  return { statusLine: head.split("\r\n")[0], head, body: JSON.parse(body) }
}

describe("client errors Node answers before any route", () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = answerClientErrorsInEnvelope(createServer((_, res) => res.end("routed")))
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    port = (server.address() as { port: number }).port
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it("answers headers past Node's limit with 431 in the envelope", async () => {
    const huge = "x".repeat(20_000)
    const answer = parse(
      await rawExchange(port, `GET /v1/workspaces HTTP/1.1\r\nhost: a\r\nx-service-config: ${huge}\r\n\r\n`)
    )
    expect(answer.statusLine).toBe("HTTP/1.1 431 Request Header Fields Too Large")
    expect(answer.head).toContain("content-type: application/json")
    expect(answer.body).toMatchObject({
      success: false,
      error: { code: "headers_too_large", type: "invalid_request_error", param: null }
    })
  })

  it("answers malformed HTTP with 400 in the envelope", async () => {
    const answer = parse(await rawExchange(port, "NOT-HTTP\r\n\r\n"))
    expect(answer.statusLine).toBe("HTTP/1.1 400 Bad Request")
    expect(answer.body).toMatchObject({ success: false, error: { code: "invalid_request" } })
  })
})
