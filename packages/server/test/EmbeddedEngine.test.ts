/**
 * `createGatewayControl` on the memory store: bootstrap, the API through `nodeHandler` mounted under
 * `/gateway` on a real node:http server, through `fetch` with no server at all, and the domain through
 * `run` with no HTTP; then `close`.
 */
import { ApiKeys, Prompts } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BootstrapOutput, createGatewayControl, type GatewayControlEngine } from "../src/index.ts"
import { errorOf, jsonOf } from "./support/TestServer.ts"

let engine: GatewayControlEngine
let boot: BootstrapOutput
let server: Server
let baseUrl: string

beforeAll(async () => {
  engine = await createGatewayControl({ store: "memory", basePath: "/gateway/", logLevel: "none" })
  boot = await engine.bootstrap({ organisationName: "Embedded", ownerEmail: "owner@embedded.test" })
  // The host app answers what is not the API's: `next` gets the requests outside the prefix.
  server = createServer((request, response) =>
    engine.nodeHandler(request, response, () => response.writeHead(200).end("the host app"))
  )
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  await engine.close()
})

const send = (method: string, path: string, body?: unknown, key: string | null = boot.api_key) =>
  fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(key === null ? {} : { "x-service-api-key": key })
    },
    body: body === undefined ? undefined : JSON.stringify(body)
  })

const createPrompt = async (name: string, template: string) => {
  const created = await send("POST", "/gateway/v1/prompts", {
    workspace_id: boot.workspace_id,
    name,
    string: template,
    model: "gpt-3.5-turbo-instruct"
  })
  expect(created.status).toBe(201)
  return jsonOf(created)
}

describe("bootstrap", () => {
  it("answers the ids and the admin key, as the CLI prints them", () => {
    expect(Object.keys(boot).sort()).toEqual(["api_key", "organisation_id", "user_id", "workspace_id"])
    expect(boot.api_key).toMatch(/^gwc_[A-Za-z0-9_-]{43}$/)
  })

  it("fails as the CLI does on a store that has an organisation", async () => {
    const again = await engine.bootstrap({ organisationName: "Again", ownerEmail: "a@b.test" }).catch((e) => e)
    expect(again).toMatchObject({ _tag: "AlreadyBootstrapped" })
  })
})

describe("nodeHandler under basePath /gateway", () => {
  it("creates and renders a prompt over HTTP", async () => {
    const prompt = await createPrompt("Greeter", "Hello {{name}}!")
    const rendered = await send("POST", `/gateway/v1/prompts/${prompt.id}/render`, { variables: { name: "Ada" } })
    expect(rendered.status).toBe(200)
    expect((await jsonOf(rendered)).data).toMatchObject({ prompt: "Hello Ada!" })
  })

  it("serves the OpenAPI document and the docs under the prefix", async () => {
    const openapi = await send("GET", "/gateway/v1/openapi.json", undefined, null)
    expect(openapi.status).toBe(200)
    expect((await jsonOf(openapi)).openapi).toMatch(/^3\./)
    expect((await send("GET", "/gateway/docs", undefined, null)).headers.get("content-type")).toMatch(/text\/html/)
  })

  it("hands requests outside the prefix to next, and answers unknown paths inside it in the envelope", async () => {
    const outside = await send("GET", "/v1/workspaces")
    expect(await outside.text()).toBe("the host app")
    expect(await (await send("GET", "/gatewayx/v1/workspaces")).text()).toBe("the host app")
    const inside = await send("GET", "/gateway/v1/nothing-here")
    expect(await errorOf(inside)).toMatchObject({ status: 404, code: "not_found" })
    expect(inside.headers.get("x-request-id")).toBeTruthy()
  })

  it("keeps the edge: a refused key answers 401 in the envelope", async () => {
    const refused = await send("GET", "/gateway/v1/workspaces", undefined, "gwc_nope")
    expect(await errorOf(refused)).toMatchObject({ status: 401, success: false })
  })
})

describe("fetch", () => {
  const call = (path: string, init: RequestInit = {}) => engine.fetch(new Request(`http://engine.local${path}`, init))

  it("answers a web Request directly: the OpenAPI document, a JSON endpoint, an error envelope", async () => {
    const openapi = await call("/gateway/v1/openapi.json")
    expect(openapi.status).toBe(200)
    expect((await jsonOf(openapi)).paths).toHaveProperty(["/v1/prompts/{promptId}/render"])

    const workspaces = await call("/gateway/v1/workspaces", { headers: { "x-service-api-key": boot.api_key } })
    expect(workspaces.status).toBe(200)
    expect((await jsonOf(workspaces)).data.map((w: { slug: string }) => w.slug)).toContain("default")

    const unsupported = await call("/gateway/v1/workspaces", {
      method: "POST",
      headers: { "x-service-api-key": boot.api_key, "content-type": "text/plain" },
      body: "{}"
    })
    expect(await errorOf(unsupported)).toMatchObject({ status: 415, code: "unsupported_media_type" })
  })

  it("answers a path outside basePath with the 404 envelope: there is no next", async () => {
    const outside = await call("/v1/workspaces", { headers: { "x-service-api-key": boot.api_key } })
    expect(await errorOf(outside)).toMatchObject({
      status: 404,
      code: "not_found",
      message: expect.stringContaining("/v1/workspaces")
    })
  })

  it("refuses a body over maxBodyBytes with 413, though a web Request has no Content-Length", async () => {
    const small = await createGatewayControl({ store: "memory", maxBodyBytes: 64, logLevel: "none" })
    try {
      const { api_key } = await small.bootstrap({ organisationName: "Small", ownerEmail: "s@m.test" })
      const response = await small.fetch(
        new Request("http://engine.local/v1/workspaces", {
          method: "POST",
          headers: { "content-type": "application/json", "x-service-api-key": api_key },
          body: JSON.stringify({ name: "x".repeat(200) })
        })
      )
      expect(await errorOf(response)).toMatchObject({ status: 413, code: "payload_too_large" })
    } finally {
      await small.close()
    }
  })
})

describe("run", () => {
  it("authenticates the bootstrap key and renders a prompt with no HTTP", async () => {
    const prompt = await createPrompt("In-process", "Dear {{name}}")
    const rendered = await engine.run(Effect.gen(function*() {
      const principal = yield* (yield* ApiKeys).authenticate(Redacted.make(boot.api_key))
      return yield* (yield* Prompts).render(principal, prompt.id, { variables: { name: "Grace" } })
    }))
    expect(rendered.data).toMatchObject({ prompt: "Dear Grace" })
  })

  it("holds renders with no HTTP to maxRenderSteps", async () => {
    const bounded = await createGatewayControl({ store: "memory", maxRenderSteps: 10, logLevel: "none" })
    try {
      const { api_key, workspace_id } = await bounded.bootstrap({ organisationName: "Bounded", ownerEmail: "b@b.test" })
      const created = await bounded.fetch(
        new Request("http://engine.local/v1/prompts", {
          method: "POST",
          headers: { "content-type": "application/json", "x-service-api-key": api_key },
          body: JSON.stringify({ workspace_id, name: "loop", string: "{{#v}}{{/v}}", model: "m" })
        })
      )
      const prompt = await jsonOf(created)
      const renderItems = (count: number) =>
        bounded.run(Effect.gen(function*() {
          const principal = yield* (yield* ApiKeys).authenticate(Redacted.make(api_key))
          const variables = { v: Array.from({ length: count }, () => 1) }
          return yield* (yield* Prompts).render(principal, prompt.id, { variables })
        }))
      // The lookup of `v` is one step, each item one more.
      expect((await renderItems(9)).data).toMatchObject({ prompt: "" })
      expect(await renderItems(10).catch((e) => e)).toMatchObject({
        _tag: "InvalidRequest",
        param: "variables",
        message: expect.stringContaining("10 steps")
      })
    } finally {
      await bounded.close()
    }
  })

  it("rejects with the program's own failure", async () => {
    const failure = await engine.run(
      Effect.flatMap(Effect.service(ApiKeys), (keys) => keys.authenticate(Redacted.make("gwc_wrong")))
    ).catch((e) => e)
    expect(failure).toMatchObject({ _tag: "Unauthenticated" })
  })
})

describe("the client address with fetch", () => {
  /** The address the audit log records for a workspace created through fetch. */
  const recorded = async (engineOf: GatewayControlEngine, key: string, remoteAddress?: string) => {
    const created = await engineOf.fetch(
      new Request("http://engine.local/v1/workspaces", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-service-api-key": key,
          "x-forwarded-for": "6.6.6.6, 203.0.113.7"
        },
        body: JSON.stringify({ name: `from ${remoteAddress ?? "nowhere"}` })
      }),
      { remoteAddress }
    )
    expect(created.status).toBe(201)
    const audit = await engineOf.fetch(
      new Request("http://engine.local/v1/audit-logs?resource_type=workspace&page_size=1", {
        headers: { "x-service-api-key": key }
      })
    )
    return (await jsonOf(audit)).records[0].client_ip as string | null
  }

  it("is the peer given, walked past trusted proxies as on a socket; unknown without one", async () => {
    const trusting = await createGatewayControl({ store: "memory", trustProxy: "10.0.0.0/8", logLevel: "none" })
    try {
      const { api_key } = await trusting.bootstrap({ organisationName: "Proxied", ownerEmail: "o@p.test" })
      expect(await recorded(trusting, api_key, "10.0.0.1")).toBe("203.0.113.7")
      expect(await recorded(trusting, api_key, "192.0.2.9")).toBe("192.0.2.9")
      expect(await recorded(trusting, api_key)).toBeNull()
      expect(await recorded(trusting, api_key, "not-an-address")).toBeNull()
    } finally {
      await trusting.close()
    }
  })
})

describe("close", () => {
  it("releases the engine once, however often called; afterwards requests answer 503 and run rejects", async () => {
    const closing = await createGatewayControl({ store: "memory", logLevel: "none" })
    await closing.bootstrap({ organisationName: "Closing", ownerEmail: "c@d.test" })
    await Promise.all([closing.close(), closing.close()])
    await closing.close()
    const answer = await closing.fetch(new Request("http://engine.local/v1/openapi.json"))
    expect(await errorOf(answer)).toMatchObject({ status: 503, code: "service_unavailable" })
    await expect(closing.run(Effect.void)).rejects.toThrow(/closed/)
  })
})

describe("close with a request in flight", () => {
  /** A workspace create whose body arrives only when `finish` is called. */
  const slowCreate = (engineOf: GatewayControlEngine, key: string) => {
    const body = JSON.stringify({ name: "Slow" })
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c
        c.enqueue(new TextEncoder().encode(body.slice(0, 5)))
      }
    })
    const answer = engineOf.fetch(
      new Request("http://engine.local/v1/workspaces", {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-api-key": key },
        body: stream,
        duplex: "half"
      })
    )
    const finish = () => {
      controller.enqueue(new TextEncoder().encode(body.slice(5)))
      controller.close()
    }
    return { answer, finish }
  }

  it("lets it finish before releasing the store", async () => {
    const draining = await createGatewayControl({ store: "memory", logLevel: "none" })
    const { api_key } = await draining.bootstrap({ organisationName: "Draining", ownerEmail: "d@r.test" })
    const { answer, finish } = slowCreate(draining, api_key)
    const closed = draining.close()
    finish()
    expect((await answer).status).toBe(201)
    await closed
  })

  it("cancels it once shutdownTimeoutMs has passed", async () => {
    const impatient = await createGatewayControl({ store: "memory", logLevel: "none", shutdownTimeoutMs: 0 })
    const { api_key } = await impatient.bootstrap({ organisationName: "Impatient", ownerEmail: "i@p.test" })
    const { answer } = slowCreate(impatient, api_key)
    await impatient.close()
    expect(await errorOf(await answer)).toMatchObject({ status: 503, code: "service_unavailable" })
  })
})
