/**
 * A gateway for fine-tuning listings in tests: fake providers on 127.0.0.1, a workspace key allowed to
 * call and to store credentials, and the outbound network of `Outbound.ts`, so nothing leaves the machine.
 */
import { randomBytes } from "node:crypto"
import { expect } from "vitest"
import { providerRegistry } from "../../src/App.ts"
import type { FakeProvider } from "./FakeProvider.ts"
import { loopbackOnlyConnector, tableResolver } from "./Outbound.ts"
import { jsonOf, startTestServer, type TestServer, type TestStore } from "./TestServer.ts"

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
  const created = await jsonOf(
    await server.send("POST", "/v1/api-keys/workspace/service", {
      name: "fine-tuning",
      workspace_id: server.workspaceId,
      scopes: ["completions.write", "virtual_keys.create", "configs.create"]
    })
  )
  const key: string = created.key
  expect(typeof key).toBe("string")
  return {
    server,
    dns,
    connector,
    /** `GET /v1/fine_tuning/jobs` with the workspace key and these headers; redirects are not followed here. */
    jobs: (headers: Record<string, string>) =>
      server.request("/v1/fine_tuning/jobs", { key, headers, redirect: "manual" }),
    /** A POST with the workspace key, e.g. to store a virtual key or a config. */
    create: (path: "/v1/virtual-keys" | "/v1/configs", body: Record<string, unknown>) =>
      server.send("POST", path, body, key),
    close: () => server.close()
  }
}

export type FineTuningGateway = Awaited<ReturnType<typeof startFineTuningGateway>>
