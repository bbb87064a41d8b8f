/**
 * Property-based fuzzing of every endpoint the API defines: mutations of a valid example (body, query, path
 * ids, headers) must never answer 5xx, and every 4xx must be the JSON error envelope. The classic mutations
 * (NUL, lone surrogates, deep nesting, huge ids, other media types) run on every field every time; random
 * ones follow.
 *
 * The seed is printed at the start; replay a failure with FUZZ_SEED=<seed>. FUZZ_RUNS raises the number of
 * random requests per endpoint and store (default 60).
 */
import { GatewayApi } from "@gateway-control/adapters-http"
import { OpenApi } from "effect/http-api"
import fc from "fast-check"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { providerRegistry } from "../src/App.ts"
import { examples, makeFixture, startLocalProvider } from "./support/fuzz/Examples.ts"
import {
  classicRequests,
  describeRequest,
  endpointsOf,
  exampleRequest,
  fuzzRequest
} from "./support/fuzz/FuzzRequests.ts"
import { describeAnswer, problemWith, type RawClient, rawClient } from "./support/fuzz/RawHttp.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { testStores } from "./support/Stores.ts"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const integerFromEnv = (name: string, fallback: () => number) => {
  const text = process.env[name]
  if (text === undefined || text === "") return fallback()
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new Error(`${name} must be an integer, got '${text}'`)
  return value
}

const seed = integerFromEnv("FUZZ_SEED", () => randomBytes(4).readInt32LE())
const numRuns = integerFromEnv("FUZZ_RUNS", () => 60)
console.log(`fuzz: seed ${seed}, ${numRuns} runs per endpoint and store (replay with FUZZ_SEED=${seed})`)

/** The endpoints of the contract, as its OpenAPI document lists them: a new endpoint is fuzzed without asking. */
const endpoints = endpointsOf(OpenApi.fromApi(GatewayApi))

/** A failing property shrinks its request; a bound keeps a failing run within the test's time. */
const MAX_SHRINKS = 40

describe("the fuzz table", () => {
  it("has a valid example for every endpoint of the API", () => {
    const missing = endpoints.filter((e) => examples[e.operationId] === undefined).map((e) => e.operationId)
    expect(missing, "add an example for these endpoints to test/support/fuzz/Examples.ts").toEqual([])
  })
})

describe.each(testStores)("fuzzing every endpoint on the $name store", (store) => {
  let server: TestServer
  let provider: Awaited<ReturnType<typeof startLocalProvider>>
  /** The MCP server the live examples (test, sync, capabilities) talk to, trusted on 127.0.0.1. */
  let mcp: SdkMcpServer
  let client: RawClient

  beforeAll(async () => {
    provider = await startLocalProvider()
    mcp = await startSdkMcpServer()
    server = await startTestServer({
      store: store.layer(),
      providers: {
        // Every known provider is the local one: nothing the fuzz sends leaves the machine.
        registry: providerRegistry({
          providerBaseUrls: ["openai", "together-ai", "fireworks-ai"].map((name) => [name, provider.baseUrl]),
          upstreamTimeoutMs: 5_000,
          trustedCustomHosts: [mcp.host]
        }),
        masterKey: new Uint8Array(randomBytes(32))
      }
    })
    client = rawClient(server.baseUrl)
  })
  afterAll(async () => {
    client?.close()
    await server?.close()
    await provider?.close()
    await mcp?.close()
  })

  it("fuzzes the endpoints the server's own OpenAPI document lists", async () => {
    const served = endpointsOf(await jsonOf(await server.request("/v1/openapi.json", { key: null })))
    expect(served.map((e) => e.operationId)).toEqual(endpoints.map((e) => e.operationId))
  })

  it.each(endpoints.map((endpoint, index) => [`${endpoint.method} ${endpoint.path}`, endpoint, index] as const))(
    "%s answers mutated requests without 5xx, and every 4xx in the envelope",
    async (_, endpoint, index) => {
      const makeExample = examples[endpoint.operationId]
      if (makeExample === undefined) throw new Error(`no valid example for ${endpoint.operationId}`)
      const fixture = await makeFixture(server, String(index), mcp.httpUrl)
      const example = makeExample(fixture)

      // The example must be valid, or mutations of it explore nothing beyond the first rejection.
      const valid = exampleRequest(endpoint, example, fixture)
      const answer = await client.send(valid)
      expect(answer.status, `${describeRequest(valid)}\n→ ${describeAnswer(answer)}`).toBeLessThan(300)

      await fc.assert(
        fc.asyncProperty(fc.limitShrink(fuzzRequest(endpoint, example, fixture), MAX_SHRINKS), async (request) => {
          const answer = await client.send(request)
          const problem = problemWith(answer)
          if (problem !== undefined) {
            throw new Error(`${problem}\n${describeRequest(request)}\n→ ${describeAnswer(answer)}`)
          }
        }),
        {
          // One seed per endpoint: with one seed for all, endpoints of the same shape would all draw the same
          // mutations and miss the same ones.
          seed: (seed + index) | 0,
          numRuns,
          // The classic mutations run first, every time; the random runs look for what nobody listed.
          examples: classicRequests(endpoint, example, fixture).map((request) => [request])
        }
      )
    },
    120_000
  )
})
