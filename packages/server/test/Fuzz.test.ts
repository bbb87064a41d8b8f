/**
 * Property-based fuzzing of every endpoint the API defines: mutations of a valid example (body, query, path
 * ids, headers) must never answer 5xx, and every 4xx must be the JSON error envelope. The classic mutations
 * (NUL, lone surrogates, deep nesting, huge ids, other media types) run on every field every time; random
 * ones follow.
 *
 * Upstream answers are fuzzed too: a hostile MCP server and a hostile provider (support/fuzz/UpstreamMutations.ts)
 * answer sync, test, a health round and the fine-tuning job list with NUL, lone surrogates, control characters
 * in names, huge strings, deep and invalid JSON and wrong types. No 5xx but the contract's 502 and 504, no
 * health round broken or aborted, nothing stored a store would refuse.
 *
 * The seed is printed at the start; replay a failure with FUZZ_SEED=<seed>. FUZZ_RUNS raises the number of
 * random requests per endpoint and store (default 60), and of upstream answers (a third of it).
 */
import { GatewayApi } from "@gateway-control/adapters-http"
import { makeHealthRound, McpSettings } from "@gateway-control/domain"
import { Effect } from "effect"
import { OpenApi } from "effect/http-api"
import fc from "fast-check"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_MCP_CONFIG, providerRegistry } from "../src/App.ts"
import { integerFromEnv } from "./support/EnvSeeds.ts"
import { examples, makeFixture, startLocalProvider } from "./support/fuzz/Examples.ts"
import {
  classicRequests,
  describeRequest,
  endpointsOf,
  exampleRequest,
  fuzzRequest
} from "./support/fuzz/FuzzRequests.ts"
import { type Answer, describeAnswer, problemWith, type RawClient, rawClient } from "./support/fuzz/RawHttp.ts"
import {
  classicMcpBehaviours,
  classicProviderAnswers,
  hostileMcpBehaviour,
  type HostileProvider,
  hostileProviderAnswer,
  startHostileProvider,
  unstorableIn,
  upstreamProblemWith
} from "./support/fuzz/UpstreamMutations.ts"
import { type HostileMcpServer, startHostileMcpServer } from "./support/HostileMcpServer.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { testStores } from "./support/Stores.ts"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

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
      // Every fixture signs in from this one address, and the fuzz sends sign-ins by the hundred: limits that
      // would refuse the fixtures' own sign-ins are not what this test is about (Sessions.test.ts checks them).
      signInLimits: {
        perAccount: { failures: 100_000, windowMs: 60_000 },
        perClient: { failures: 100_000, windowMs: 60_000 }
      },
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
      const fixture = await makeFixture(server, String(index), mcp.httpUrl, endpoint.operationId)
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

/** An answer of the gateway as the judges take it. */
const answerOf = async (response: Response): Promise<Answer> => ({
  status: response.status,
  contentType: response.headers.get("content-type") ?? undefined,
  body: await response.text()
})

describe.each(testStores)("fuzzing upstream answers on the $name store", (store) => {
  let server: TestServer
  let mcp: HostileMcpServer
  let provider: HostileProvider
  let integrationId: string
  let serverId: string
  let workspaceKey: string
  const upstreamRuns = Math.max(1, Math.ceil(numRuns / 3))

  beforeAll(async () => {
    ;[mcp, provider] = await Promise.all([startHostileMcpServer(), startHostileProvider()])
    server = await startTestServer({
      store: store.layer(),
      providers: {
        registry: providerRegistry({
          providerBaseUrls: [["openai", provider.baseUrl]],
          upstreamTimeoutMs: 5_000,
          trustedCustomHosts: [mcp.host]
        }),
        masterKey: new Uint8Array(randomBytes(32))
      },
      // The health checker is run round by round below, not in the background.
      mcp: { ...DEFAULT_MCP_CONFIG, timeoutMs: 5_000, healthIntervalMs: 0 }
    })
    const created = async (path: string, body: unknown, key?: string) => {
      const response = await server.send("POST", path, body, key)
      if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${await response.text()}`)
      return jsonOf(response)
    }
    integrationId = (await created("/v1/mcp-integrations", {
      name: "Hostile",
      url: mcp.url,
      transport: "http",
      auth_type: "none"
    })).id
    serverId = (await created("/v1/mcp-servers", {
      name: "Hostile server",
      mcp_integration_id: integrationId,
      workspace_id: server.workspaceId
    })).id
    workspaceKey = (await created("/v1/api-keys/workspace/service", {
      name: "fine-tuning",
      workspace_id: server.workspaceId,
      scopes: ["completions.write", "virtual_keys.create"]
    })).key
    await created(
      "/v1/virtual-keys",
      { name: "hostile", slug: "hostile", provider: "openai", key: "sk-x" },
      workspaceKey
    )
  })
  afterAll(async () => {
    await server?.close()
    await Promise.all([mcp?.close(), provider?.close()])
  })

  /** One health round over the store, as the checker runs it; unhealthy at the first failure, so each writes. */
  const healthRound = () =>
    server.runtime.runPromise(
      Effect.flatten(makeHealthRound).pipe(
        Effect.provideService(McpSettings, { timeoutMs: 5_000, healthIntervalMs: 100, unhealthyAfter: 1 })
      )
    )

  it("answers sync and test without 5xx, stores nothing unstorable, and every health round ends whole", async () => {
    await fc.assert(
      fc.asyncProperty(hostileMcpBehaviour, async ({ label, value }) => {
        mcp.behaviour = value
        const fail = (problem: string) => {
          throw new Error(`MCP server sends ${label}: ${problem}`)
        }
        for (
          const path of [`/v1/mcp-integrations/${integrationId}/capabilities/sync`, `/v1/mcp-servers/${serverId}/test`]
        ) {
          const answer = await answerOf(await server.send("POST", path, undefined))
          const problem = upstreamProblemWith(answer)
          if (problem !== undefined) fail(`POST ${path} ${problem}\n→ ${describeAnswer(answer)}`)
        }
        const listed = await jsonOf(
          await server.request(`/v1/mcp-integrations/${integrationId}/capabilities?page_size=1000`)
        )
        const unstorable = unstorableIn(listed)
        if (unstorable !== undefined) fail(`a stored capability holds ${unstorable}`)
        const round = await healthRound()
        if (round.broken > 0) fail(`${round.broken} of ${round.checked} health checks broke`)
        const integration = await jsonOf(await server.request(`/v1/mcp-integrations/${integrationId}`))
        const message = unstorableIn(integration.status_message)
        if (message !== undefined) fail(`the status message holds ${message}`)
      }),
      { seed, numRuns: upstreamRuns, examples: classicMcpBehaviours.map((b) => [b]) }
    )
  }, 120_000)

  it("lists fine-tuning jobs without 5xx but 502 and 504, passing a provider's refusal through", async () => {
    await fc.assert(
      fc.asyncProperty(hostileProviderAnswer, async ({ label, value }) => {
        provider.answer = value
        const answer = await answerOf(
          await server.request("/v1/fine_tuning/jobs?limit=5", {
            key: workspaceKey,
            headers: { "x-service-virtual-key": "hostile" }
          })
        )
        const problem = upstreamProblemWith(answer, value.status === 200 ? undefined : value.status)
        if (problem !== undefined) {
          throw new Error(`provider sends ${label}: ${problem}\n→ ${describeAnswer(answer)}`)
        }
      }),
      { seed, numRuns: upstreamRuns, examples: classicProviderAnswers.map((a) => [a]) }
    )
  }, 120_000)
})
