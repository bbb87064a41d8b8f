/**
 * Portkey's header names (`x-portkey-api-key`, `-virtual-key`, `-provider`, `-config`, `-custom-host`) work as
 * ours do; both spellings with different values are a 400 naming both; the request id is echoed in Portkey's
 * header too; the OpenAPI document offers the key in either header.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import {
  createConfig,
  createVirtualKey,
  type FineTuningGateway,
  startFineTuningGateway
} from "./support/FineTuningGateway.ts"
import { errorOf, jsonOf } from "./support/TestServer.ts"

let gateway: FineTuningGateway
let primary: FakeProvider
let custom: FakeProvider

beforeAll(async () => {
  ;[primary, custom] = await Promise.all([startFakeProvider("primary"), startFakeProvider("custom")])
  gateway = await startFineTuningGateway({ store: "memory", primary, trusted: [custom] })
  await gateway.api(createVirtualKey({ name: "main", provider: "openai", key: "sk-good" }))
  await gateway.api(createConfig({ name: "direct", config: { provider: "openai", api_key: "sk-good" } }))
})
afterAll(async () => {
  await gateway.close()
  await Promise.all([primary.close(), custom.close()])
})

const server = () => gateway.server
const firstJob = async (response: Response) => {
  expect(response.status, await response.clone().text()).toBe(200)
  return String((await jsonOf(response)).data[0].id)
}

describe("the API key in x-portkey-api-key", () => {
  it("authenticates HttpApi routes and the render route", async () => {
    const headers = { "x-portkey-api-key": server().adminKey }
    expect((await server().request("/v1/workspaces", { key: null, headers })).status).toBe(200)
    const render = await server().request("/v1/prompts/no-such-prompt/render", {
      key: null,
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ variables: {} })
    })
    // Past the key check: the prompt is what is missing.
    expect(await errorOf(render)).toMatchObject({ status: 404, code: "not_found" })
  })

  it("accepts both spellings with one value, and refuses two values naming both headers", async () => {
    const same = { "x-portkey-api-key": server().adminKey }
    expect((await server().request("/v1/workspaces", { headers: same })).status).toBe(200)
    const other = { "x-portkey-api-key": `gwc_${"A".repeat(43)}` }
    const error = await errorOf(await server().request("/v1/workspaces", { headers: other }))
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param: "x-service-api-key" })
    expect(error.message).toContain("x-service-api-key and x-portkey-api-key")
  })

  it("refuses a missing key in either spelling with the same 401", async () => {
    const error = await errorOf(await server().request("/v1/workspaces", { key: null }))
    expect(error).toMatchObject({ status: 401, code: "unauthenticated" })
  })
})

describe("the provider headers in Portkey's spelling", () => {
  const jobs = (headers: Record<string, string>) => gateway.jobs(headers)

  it("choose the provider as ours do", async () => {
    expect(await firstJob(await jobs({ "x-portkey-virtual-key": "main" }))).toBe("ftjob-primary-000")
    expect(await firstJob(await jobs({ "x-portkey-provider": "@main" }))).toBe("ftjob-primary-000")
    expect(await firstJob(await jobs({ "x-portkey-config": "direct" }))).toBe("ftjob-primary-000")
    const direct = { "x-portkey-provider": "openai", authorization: "Bearer sk-good" }
    expect(await firstJob(await jobs(direct))).toBe("ftjob-primary-000")
    expect(await firstJob(await jobs({ ...direct, "x-portkey-custom-host": custom.baseUrl }))).toBe("ftjob-custom-000")
  })

  it("are named as the client spelled them in errors", async () => {
    const unreadable = await errorOf(await jobs({ "x-portkey-config": "{not json" }))
    expect(unreadable).toMatchObject({ status: 400, param: "x-portkey-config" })
    const noKey = await errorOf(await jobs({ "x-portkey-provider": "openai" }))
    expect(noKey.message).toContain("x-portkey-provider needs the provider key")
    const elsewhere = await errorOf(
      await jobs({ "x-portkey-virtual-key": "main", "x-portkey-custom-host": custom.baseUrl })
    )
    expect(elsewhere).toMatchObject({ status: 400, param: "x-portkey-custom-host" })
  })

  it.each([
    ["x-service-virtual-key", "x-portkey-virtual-key"],
    ["x-service-provider", "x-portkey-provider"],
    ["x-service-config", "x-portkey-config"],
    ["x-service-custom-host", "x-portkey-custom-host"]
  ])("refuse %s and %s with different values", async (ours, theirs) => {
    const error = await errorOf(await jobs({ [ours]: "one", [theirs]: "two" }))
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param: ours })
    expect(error.message).toContain(`${ours} and ${theirs}`)
    // One value in both spellings passes the edge (whatever the listing then makes of it).
    expect(await (await jobs({ [ours]: "main", [theirs]: "main" })).text()).not.toContain("different values")
  })
})

describe("the request id", () => {
  it("is echoed as x-portkey-request-id too, on answers and on errors", async () => {
    for (const path of ["/v1/workspaces", "/v1/no-such-route"]) {
      const response = await server().request(path, { headers: { "x-request-id": "req-123" } })
      expect(response.headers.get("x-request-id")).toBe("req-123")
      expect(response.headers.get("x-portkey-request-id")).toBe("req-123")
    }
  })
})

describe("the OpenAPI document", () => {
  it("offers the key in x-service-api-key or x-portkey-api-key", async () => {
    const document = await jsonOf(await server().request("/v1/openapi.json", { key: null }))
    expect(document.components.securitySchemes).toMatchObject({
      serviceApiKey: { type: "apiKey", in: "header", name: "x-service-api-key" },
      portkeyApiKey: { type: "apiKey", in: "header", name: "x-portkey-api-key" }
    })
    expect(document.paths["/v1/workspaces"].get.security).toEqual([{ serviceApiKey: [] }, { portkeyApiKey: [] }])
  })
})
