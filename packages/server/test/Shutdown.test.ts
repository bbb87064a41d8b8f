import { request } from "node:http"
import { describe, expect, it } from "vitest"
import { startServerProcess } from "./support/ServerProcess.ts"

describe("graceful shutdown", () => {
  it("on SIGTERM stops accepting connections, finishes the in-flight request and exits 0", async () => {
    const server = await startServerProcess()
    expect(server.adminKey).toBeDefined()
    const body = JSON.stringify({ name: "Created during shutdown" })
    const half = Math.floor(body.length / 2)

    // A request whose body is only half sent when the signal arrives.
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${server.baseUrl}/v1/workspaces`,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "x-service-api-key": server.adminKey!
          }
        },
        (res) => {
          let text = ""
          res.on("data", (chunk) => {
            text += chunk
          })
          res.on("end", () => resolve({ status: res.statusCode!, body: text }))
        }
      )
      req.on("error", reject)
      req.write(body.slice(0, half))
      setTimeout(() => {
        server.child.kill("SIGTERM")
        setTimeout(async () => {
          // New connections are refused while the in-flight request is still open.
          const refused = await fetch(`${server.baseUrl}/healthz`).then(
            () => false,
            () => true
          )
          expect(refused).toBe(true)
          req.end(body.slice(half))
        }, 300)
      }, 200)
    })

    const answered = await response
    expect(answered.status).toBe(201)
    expect(JSON.parse(answered.body)).toMatchObject({ object: "workspace" })
    expect(await server.exited).toBe(0)
  })

  it("with SHUTDOWN_DRAIN_MS, /readyz answers 503 first while requests are still served, then the listener closes", async () => {
    const drainMs = 1_500
    const server = await startServerProcess({ SHUTDOWN_DRAIN_MS: String(drainMs) })
    expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200)
    const signalled = performance.now()
    server.child.kill("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 300))
    // Draining: not ready, yet new connections and requests are still taken and answered.
    const ready = await fetch(`${server.baseUrl}/readyz`)
    expect({ status: ready.status, retryAfter: ready.headers.get("retry-after") !== null }).toEqual({
      status: 503,
      retryAfter: true
    })
    expect(await ready.json()).toMatchObject({
      success: false,
      error: { code: "service_unavailable", message: "The service is shutting down." }
    })
    const listed = await fetch(`${server.baseUrl}/v1/workspaces`, {
      headers: { "x-service-api-key": server.adminKey! }
    })
    expect(listed.status).toBe(200)
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
    expect(await server.exited).toBe(0)
    // It waited out the drain before closing.
    expect(performance.now() - signalled).toBeGreaterThanOrEqual(drainMs)
    expect(server.stderr()).toContain("/readyz answers 503")
  })

  it("exits 0 on SIGINT when idle", async () => {
    const server = await startServerProcess()
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
    server.child.kill("SIGINT")
    expect(await server.exited).toBe(0)
  })
})
