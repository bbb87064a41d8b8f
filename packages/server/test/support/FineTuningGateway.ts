/**
 * A gateway for fine-tuning listings in tests: fake providers on 127.0.0.1, a workspace key allowed to
 * call and to store credentials, and the outbound network of `Outbound.ts`, so nothing leaves the machine.
 */
import type { GatewayControlClientShape } from "@gateway-control/client"
import type { CreateConfig, CreateVirtualKey } from "@gateway-control/domain"
import { randomBytes } from "node:crypto"
import { providerRegistry } from "../../src/App.ts"
import { type ApiCall, createWorkspaceServiceKey } from "./ApiClient.ts"
import type { FakeProvider } from "./FakeProvider.ts"
import { loopbackOnlyConnector, tableResolver } from "./Outbound.ts"
import { startTestServer, type TestServer, type TestStore } from "./TestServer.ts"

/** The typed creation of a virtual key, for `api` and `refusal`. */
export const createVirtualKey = (body: typeof CreateVirtualKey.Type) => (client: GatewayControlClientShape) =>
  client.virtualKeys.create({ payload: body })

/** The typed creation of a config, for `api` and `refusal`. */
export const createConfig = (body: typeof CreateConfig.Type) => (client: GatewayControlClientShape) =>
  client.configs.create({ payload: body })

export interface FineTuningGatewayOptions {
  readonly store: TestStore
  /** The provider `openai`'s base URL points here. */
  readonly primary: FakeProvider
  /** Custom hosts on these fakes are trusted (TRUSTED_CUSTOM_HOSTS); every other is checked. */
  readonly trusted: ReadonlyArray<FakeProvider>
  readonly dns?: Parameters<typeof tableResolver>[0]
}

export const startFineTuningGateway = async (options: FineTuningGatewayOptions) => {
  const dns = tableResolver(options.dns ?? {})
  const connector = loopbackOnlyConnector()
  const server: TestServer = await startTestServer({
    store: options.store,
    providers: {
      registry: providerRegistry({
        providerBaseUrls: [["openai", options.primary.baseUrl]],
        upstreamTimeoutMs: 10_000,
        trustedCustomHosts: options.trusted.map((fake) => fake.host)
      }),
      masterKey: new Uint8Array(randomBytes(32)),
      hostResolver: dns.resolver,
      connector: connector.factory
    }
  })
  const { key } = await server.api(
    createWorkspaceServiceKey("fine-tuning", server.workspaceId, [
      "completions.write",
      "virtual_keys.create",
      "configs.create"
    ])
  )
  return {
    server,
    dns,
    connector,
    /** `GET /v1/fine_tuning/jobs` with the workspace key and these headers; redirects are not followed here. */
    jobs: (headers: Record<string, string>) =>
      server.request("/v1/fine_tuning/jobs", { key, headers, redirect: "manual" }),
    /** A typed call with the workspace key, e.g. storing a virtual key or a config: its success. */
    api: <A, E>(call: ApiCall<A, E>) => server.api(call, key),
    /** A typed call with the workspace key that must be refused: the refusal. */
    refusal: <A, E>(call: ApiCall<A, E>) => server.refusal(call, key),
    close: () => server.close()
  }
}

export type FineTuningGateway = Awaited<ReturnType<typeof startFineTuningGateway>>
