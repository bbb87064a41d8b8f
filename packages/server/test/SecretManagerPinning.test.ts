/**
 * Secret managers' connections are pinned like provider calls (issue #29): a manager URL a secret reference names
 * is checked by the address guard once, and the connection then goes only to the addresses checked. A name that
 * answers a public address at the check and the gateway's own loopback afterwards (DNS rebinding) never reaches
 * the Vault listening there. Every connection goes through the test connector: only 127.0.0.0/8 is connected to.
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_MCP_CONFIG, providerRegistry } from "../src/App.ts"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { type FakeVault, startFakeVault } from "./support/FakeSecretManagers.ts"
import { loopbackOnlyConnector, tableResolver } from "./support/Outbound.ts"
import { jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const PUBLIC_V4 = "1.1.1.1"

describe("secret managers' connections", () => {
  let vault: FakeVault
  let provider: FakeProvider
  let server: TestServer
  const dns = tableResolver({
    // Public at the check, loopback afterwards: a name that rebinds.
    localhost: [[PUBLIC_V4], ["127.0.0.1"]]
  })
  const connector = loopbackOnlyConnector()

  beforeAll(async () => {
    vault = await startFakeVault({ "ai/openai": { key: "sk-good" } })
    provider = await startFakeProvider("pinned")
    server = await startTestServer({
      providers: {
        registry: providerRegistry({
          providerBaseUrls: [],
          upstreamTimeoutMs: 5_000,
          // The provider and the Vault on their loopback address are trusted; the rebinding name is not.
          trustedCustomHosts: [provider.host, vault.host]
        }),
        masterKey: new Uint8Array(randomBytes(32)),
        hostResolver: dns.resolver,
        connector: connector.factory
      },
      mcp: { ...DEFAULT_MCP_CONFIG, healthIntervalMs: 0, secretCacheTtlMs: 0 }
    })
  })
  afterAll(async () => {
    await server?.close()
    await Promise.all([vault?.close(), provider?.close()])
  })

  /** An integration whose key comes from a Vault reference at `vaultAddr`, tested: the health it reads with. */
  const testedWith = async (slug: string, vaultAddr: string) => {
    const reference = await jsonOf(
      await server.send("POST", "/v1/secret-references", {
        name: `Vault ${slug}`,
        manager_type: "hashicorp_vault",
        auth_config: { vault_auth_type: "token", vault_addr: vaultAddr, vault_token: vault.rootToken },
        secret_path: "secret/ai/openai",
        secret_key: "key"
      })
    )
    const made = await server.send("POST", "/v1/integrations", {
      name: `Mapped ${slug}`,
      slug,
      ai_provider_id: "openai",
      configurations: { custom_host: provider.baseUrl },
      secret_mappings: [{ target_field: "key", secret_reference_id: reference.slug }]
    })
    expect(made.status, await made.clone().text()).toBe(201)
    return jsonOf(await server.send("POST", `/v1/integrations/${slug}/test`, undefined))
  }

  it("reaches a trusted Vault, and the key it holds reaches the provider", async () => {
    const health = await testedWith("trusted", vault.origin)
    expect(health).toMatchObject({ status: "active" })
    expect(provider.requests.at(-1)?.authorization).toBe("Bearer sk-good")
  })

  it("pins a checked Vault's connection to the address checked: a rebinding name never reaches loopback", async () => {
    const before = vault.received.length
    const health = await testedWith("rebinding", `http://localhost:${vault.origin.split(":").at(-1)}`)
    expect(health.status).toBe("failing")
    expect(health.status_message).toContain("could not be reached")
    // One lookup (the check), one attempt to the checked address, refused by the test network; Vault saw nothing.
    expect(dns.lookups("localhost")).toBe(1)
    expect(connector.attempts.filter((a) => a.hostname === "localhost")).toEqual([
      expect.objectContaining({ addresses: [PUBLIC_V4], opened: false })
    ])
    expect(vault.received.length).toBe(before)
  })
})
