/**
 * The pinned connection with real sockets and undici's own connector: a call for `localhost` pinned to
 * 127.0.0.2 must reach the listener on 127.0.0.2 (DNS would say 127.0.0.1), while the Host header and the
 * TLS server name stay `localhost`. Nothing here leaves 127.0.0.0/8.
 */
import { layerFineTuningUpstream } from "@gateway-control/adapters-http"
import { FineTuningUpstream, type UpstreamTarget } from "@gateway-control/domain"
import { Effect, Layer, Redacted } from "effect"
import { createServer } from "node:tls"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { layerProviderHttpClients } from "../src/ProviderConnections.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"

const PINNED = "127.0.0.2"

const listJobs = (target: Omit<UpstreamTarget, "apiKey" | "timeoutMs">) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const upstream = yield* FineTuningUpstream
      return yield* Effect.result(
        upstream.send({ ...target, apiKey: Redacted.make("sk-good"), timeoutMs: 5_000 }, {
          method: "GET",
          path: "/fine_tuning/jobs",
          query: [["limit", "1"]],
          body: undefined
        })
      )
    }).pipe(Effect.provide(layerFineTuningUpstream.pipe(Layer.provide(layerProviderHttpClients()))))
  )

describe("pinned provider connections", () => {
  let provider: FakeProvider
  beforeAll(async () => {
    provider = await startFakeProvider("pinned", { address: PINNED })
  })
  afterAll(() => provider.close())

  it("connect to the checked address, with the URL's host name in the Host header", async () => {
    const result = await listJobs({
      baseUrl: `http://localhost:${provider.port}/v1`,
      pinnedAddresses: [PINNED]
    })
    expect(result).toMatchObject({ _tag: "Success", success: { status: 200 } })
    expect(provider.requests.at(-1)).toMatchObject({
      host: `localhost:${provider.port}`,
      authorization: "Bearer sk-good"
    })
  })

  it("keep TLS on the host name: the server is asked for the URL's name, not the address", async () => {
    const serverNames: Array<string> = []
    // No certificate: the handshake stops once the server has read the name the client asked for.
    const tlsServer = createServer({
      SNICallback: (name, done) => {
        serverNames.push(name)
        done(new Error("no certificate in this test"), undefined)
      }
    })
    await new Promise<void>((listening) => tlsServer.listen(0, PINNED, listening))
    const address = tlsServer.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      const result = await listJobs({ baseUrl: `https://localhost:${port}/v1`, pinnedAddresses: [PINNED] })
      expect(result).toMatchObject({ _tag: "Failure", failure: { _tag: "UpstreamUnreachable" } })
      expect(serverNames).toEqual(["localhost"])
    } finally {
      await new Promise((closed) => tlsServer.close(closed))
    }
  })
})
