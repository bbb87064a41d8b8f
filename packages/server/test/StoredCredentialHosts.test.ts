/**
 * Security finding 2: a stored provider key is only ever sent to the host stored with it. A custom host
 * from the request, or from another record than the key, goes only with a key the request supplies.
 * `chosen` plays the host a caller picks; it is trusted, so that the SSRF check cannot hide the finding.
 */
import { ConfigStore, GatewayConfig } from "@gateway-control/domain"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import {
  createConfig,
  createVirtualKey,
  type FineTuningGateway,
  startFineTuningGateway
} from "./support/FineTuningGateway.ts"
import { availableStores, errorOf, jsonOf } from "./support/TestServer.ts"

describe.each(availableStores)("stored provider keys and custom hosts on %s", (store) => {
  let gateway: FineTuningGateway
  let primary: FakeProvider
  let chosen: FakeProvider
  let keyHost: FakeProvider
  let configHost: FakeProvider

  /** A config as stored before configs naming a virtual key lost their custom_host. */
  const storeLegacyConfig = (slug: string, config: GatewayConfig["config"]) =>
    gateway.server.runtime.runPromise(Effect.gen(function*() {
      const configs = yield* ConfigStore
      const now = new Date().toISOString()
      yield* configs.insert({
        record: new GatewayConfig({
          id: crypto.randomUUID(),
          organisation_id: gateway.server.organisationId,
          workspace_id: gateway.server.workspaceId,
          name: slug,
          slug,
          config,
          masked_api_key: null,
          is_default: 0,
          status: "active",
          version_id: crypto.randomUUID(),
          created_at: now,
          last_updated_at: now
        }),
        encryptedKey: null
      })
    }))

  beforeAll(async () => {
    ;[primary, chosen, keyHost, configHost] = await Promise.all(
      ["primary", "chosen", "vkey", "config"].map((name) => startFakeProvider(name))
    )
    gateway = await startFineTuningGateway({ store, primary, trusted: [chosen, keyHost, configHost] })
    // Each must be created: a typed success is a 201 with the declared body.
    await Promise.all([
      gateway.api(createVirtualKey({ name: "main", slug: "main", provider: "openai", key: "sk-good" })),
      gateway.api(createVirtualKey({
        name: "hosted",
        slug: "hosted",
        provider: "openai",
        key: "sk-good",
        custom_host: keyHost.baseUrl
      })),
      gateway.api(createConfig({
        name: "direct",
        slug: "direct",
        config: { provider: "openai", api_key: "sk-good" }
      })),
      gateway.api(createConfig({
        name: "direct hosted",
        slug: "direct-hosted",
        config: { provider: "openai", api_key: "sk-good", custom_host: configHost.baseUrl }
      })),
      gateway.api(createConfig({ name: "via key", slug: "via-key", config: { virtual_key: "main" } })),
      gateway.api(createConfig({ name: "host only", slug: "host-only", config: { custom_host: chosen.baseUrl } }))
    ])
    await storeLegacyConfig("legacy", { virtual_key: "main", custom_host: chosen.baseUrl })
  })
  afterAll(async () => {
    await gateway.close()
    await Promise.all([primary, chosen, keyHost, configHost].map((fake) => fake.close()))
  })

  const refused: ReadonlyArray<readonly [string, () => Record<string, string>, string]> = [
    ["x-service-virtual-key with x-service-custom-host", () => ({
      "x-service-virtual-key": "main",
      "x-service-custom-host": chosen.baseUrl
    }), "x-service-custom-host"],
    ["x-service-provider: @slug with x-service-custom-host", () => ({
      "x-service-provider": "@main",
      "x-service-custom-host": chosen.baseUrl
    }), "x-service-custom-host"],
    ["a stored config holding a provider key, with x-service-custom-host", () => ({
      "x-service-config": "direct",
      "x-service-custom-host": chosen.baseUrl
    }), "x-service-custom-host"],
    ["a stored config with its own key and host, with x-service-custom-host", () => ({
      "x-service-config": "direct-hosted",
      "x-service-custom-host": chosen.baseUrl
    }), "x-service-custom-host"],
    ["a stored config naming a virtual key, with x-service-custom-host", () => ({
      "x-service-config": "via-key",
      "x-service-custom-host": chosen.baseUrl
    }), "x-service-custom-host"],
    ["an inline config naming a virtual key, with x-service-custom-host", () => ({
      "x-service-config": JSON.stringify({ virtual_key: "main" }),
      "x-service-custom-host": chosen.baseUrl
    }), "x-service-custom-host"],
    ["an inline config naming a virtual key and a custom_host", () => ({
      "x-service-config": JSON.stringify({ virtual_key: "main", custom_host: chosen.baseUrl })
    }), "x-service-config.custom_host"],
    ["a stored host-only config with x-service-virtual-key", () => ({
      "x-service-config": "host-only",
      "x-service-virtual-key": "main"
    }), "x-service-config"],
    ["an inline host-only config with x-service-virtual-key", () => ({
      "x-service-config": JSON.stringify({ custom_host: chosen.baseUrl }),
      "x-service-virtual-key": "hosted"
    }), "x-service-config"],
    [
      "a stored config whose custom_host is not its virtual key's",
      () => ({ "x-service-config": "legacy" }),
      "x-service-config"
    ]
  ]

  // Counted around the call, so that what other tests sent to `chosen` does not matter.
  it.each(refused)("refuses %s with 400, sending nothing", async (_, headers, param) => {
    const connectionsBefore = chosen.connections()
    const error = await errorOf(await gateway.jobs(headers()))
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param })
    expect(error.message).toContain("stored")
    expect(chosen.connections()).toBe(connectionsBefore)
  })

  it("refuses to store a config naming both a virtual key and a custom_host", async () => {
    const error = await gateway.refusal(createConfig({
      name: "redirected key",
      config: { virtual_key: "main", custom_host: chosen.baseUrl }
    }))
    expect(error).toMatchObject({ _tag: "BadRequest", param: "config.custom_host" })
    // Raw HTTP: the name must be nowhere in the body, not only in what the schema decodes.
    const listed = await gateway.server.request("/v1/configs?page_size=1000")
    expect(await listed.text()).not.toContain("redirected key")
  })

  const sent: ReadonlyArray<readonly [string, () => Record<string, string>, string]> = [
    ["a virtual key, to its own custom_host", () => ({ "x-service-virtual-key": "hosted" }), "vkey"],
    ["a virtual key without a custom_host, to the provider", () => ({ "x-service-virtual-key": "main" }), "primary"],
    ["a config's key, to the config's custom_host", () => ({ "x-service-config": "direct-hosted" }), "config"],
    ["a config naming a virtual key, to the virtual key's host", () => ({
      "x-service-config": JSON.stringify({ virtual_key: "hosted" })
    }), "vkey"],
    ["the request's key, to x-service-custom-host", () => ({
      "x-service-provider": "openai",
      authorization: "Bearer sk-good",
      "x-service-custom-host": chosen.baseUrl
    }), "chosen"],
    ["an inline config's key, to its custom_host", () => ({
      "x-service-config": JSON.stringify({ provider: "openai", api_key: "sk-good", custom_host: chosen.baseUrl })
    }), "chosen"],
    ["the request's key, to a stored host-only config's host", () => ({
      "x-service-config": "host-only",
      "x-service-provider": "openai",
      authorization: "Bearer sk-good"
    }), "chosen"],
    ["the request's key, to x-service-custom-host over a config's host", () => ({
      "x-service-config": "host-only",
      "x-service-provider": "openai",
      authorization: "Bearer sk-good",
      "x-service-custom-host": configHost.baseUrl
    }), "config"]
  ]

  it.each(sent)("sends %s", async (_, headers, provider) => {
    const response = await gateway.jobs(headers())
    expect(response.status, await response.clone().text()).toBe(200)
    expect((await jsonOf(response)).data[0].id).toMatch(new RegExp(`^ftjob-${provider}-`))
  })
})
