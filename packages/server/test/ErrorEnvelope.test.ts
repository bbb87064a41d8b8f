import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const MAX_BODY = 4096
let server: TestServer
beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: MAX_BODY })
})
afterAll(() => server.close())

const post = (
  path: string,
  body: RequestInit["body"],
  headers: Record<string, string> = { "content-type": "application/json" }
) => server.request(path, { method: "POST", headers, body })

describe("the error envelope", () => {
  it("answers malformed JSON with 400 invalid_json", async () => {
    const error = await errorOf(await post("/v1/workspaces", "{\"name\": \"oops\","))
    expect(error).toMatchObject({ status: 400, success: false, code: "invalid_json", param: null })
  })

  it.each([
    ["an array", "[]"],
    ["null", "null"],
    ["a number", "42"],
    ["a string", "\"name\""],
    ["an object with a wrong type", "{\"name\": 12}"],
    ["deep nesting", `${"[".repeat(2000)}${"]".repeat(2000)}`]
  ])("answers %s as a body with a 400, never a 500", async (_, body) => {
    const error = await errorOf(await post("/v1/workspaces", body))
    expect(error.status).toBe(400)
    expect(["invalid_request", "invalid_json"]).toContain(error.code)
  })

  it("names the offending field in param", async () => {
    const error = await errorOf(await post("/v1/workspaces", JSON.stringify({ name: 12 })))
    expect(error).toMatchObject({ status: 400, code: "invalid_request", param: "name" })
    const missing = await errorOf(await post("/v1/workspaces", JSON.stringify({})))
    expect(missing).toMatchObject({ status: 400, code: "invalid_request", param: "name" })
    const query = await errorOf(await server.request("/v1/workspaces?current_page=-1"))
    expect(query).toMatchObject({ status: 400, code: "invalid_request", param: "current_page" })
  })

  it("answers a body that is not JSON with 415", async () => {
    const error = await errorOf(
      await post("/v1/workspaces", "name=x", { "content-type": "application/x-www-form-urlencoded" })
    )
    expect(error).toMatchObject({ status: 415, code: "unsupported_media_type" })
    const none = await errorOf(await post("/v1/workspaces", new Blob(["{}"]), {}))
    expect(none).toMatchObject({ status: 415, code: "unsupported_media_type" })
  })

  it("accepts a JSON media type with parameters", async () => {
    const response = await post("/v1/workspaces", JSON.stringify({ name: "Charset" }), {
      "content-type": "application/json; charset=utf-8"
    })
    expect(response.status).toBe(201)
  })

  it("answers a body over MAX_BODY_BYTES with 413, declared or streamed", async () => {
    const big = JSON.stringify({ name: "x".repeat(MAX_BODY) })
    const declared = await errorOf(await post("/v1/workspaces", big))
    expect(declared).toMatchObject({ status: 413, code: "payload_too_large" })
    // Without a content-length the limit applies while reading.
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big))
        controller.close()
      }
    })
    const streamed = await errorOf(
      await fetch(`${server.baseUrl}/v1/workspaces`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-service-api-key": server.adminKey },
        body: stream,
        duplex: "half"
      } as RequestInit)
    )
    expect(streamed).toMatchObject({ status: 413, code: "payload_too_large" })
    const listed = await jsonOf(await server.request("/v1/workspaces"))
    expect(listed.data.some((w: { name: string }) => w.name.startsWith("xxx"))).toBe(false)
  })

  it("answers unknown routes with 404 not_found", async () => {
    const error = await errorOf(await server.request("/v1/no-such-thing"))
    expect(error).toMatchObject({ status: 404, code: "not_found" })
    expect(error.message).toContain("/v1/no-such-thing")
    expect((await errorOf(await server.request("/", { key: null }))).code).toBe("not_found")
  })

  // The error classes carry a `_tag` for clients to catch on (adapters-http/src/ApiErrors.ts); it is no part of
  // the envelope, on the wire or in the OpenAPI document.
  it("holds success and error only, in answers and in the OpenAPI document", async () => {
    const fromHandler = await server.request("/v1/prompts/prompt_nope")
    expect(fromHandler.status).toBe(404)
    const fromDecoding = await server.request("/v1/workspaces?page_size=0")
    expect(fromDecoding.status).toBe(400)
    const bodies = [await jsonOf(fromHandler), await jsonOf(fromDecoding)]
    for (const body of bodies) {
      expect(body).toEqual({
        success: false,
        error: {
          code: expect.any(String),
          type: expect.any(String),
          message: expect.any(String),
          param: expect.toBeOneOf([null, "page_size"])
        }
      })
    }
    // Portkey's error schema requires `type`: the kind, as OpenAI's clients read it.
    expect(bodies.map((body) => body.error.type)).toEqual(["not_found_error", "invalid_request_error"])
    const document = await jsonOf(await server.request("/v1/openapi.json", { key: null }))
    const notFound = document.paths["/v1/prompts/{promptId}"].get.responses["404"].content["application/json"].schema
    const schema = notFound.$ref === undefined ? notFound : document.components.schemas[notFound.$ref.split("/").pop()]
    expect(Object.keys(schema.properties)).toEqual(["success", "error"])
  })

  it("answers a duplicate slug with 409 conflict and keeps one workspace", async () => {
    const first = await post("/v1/workspaces", JSON.stringify({ name: "Dup", slug: "dup" }))
    expect(first.status).toBe(201)
    const second = await errorOf(await post("/v1/workspaces", JSON.stringify({ name: "Dup again", slug: "dup" })))
    expect(second).toMatchObject({ status: 409, code: "conflict", param: "slug" })
    const listed = await jsonOf(await server.request("/v1/workspaces"))
    expect(listed.data.filter((w: { slug: string }) => w.slug === "dup")).toHaveLength(1)
  })
})

// Rendering is served by a lean route outside HttpApi (adapters-http/src/groups/prompts/RenderRoute.ts); it must answer
// exactly as the rest of the API does.
describe("the render route's edge", () => {
  const render = "/v1/prompts/no-such-prompt/render"

  it("answers bodies that are not a JSON object with 400, malformed ones with invalid_json", async () => {
    expect(await errorOf(await post(render, "{\"variables\": "))).toMatchObject({
      status: 400,
      code: "invalid_json",
      param: null
    })
    for (const body of ["[]", "null", "42", "\"text\"", ""]) {
      expect(await errorOf(await post(render, body))).toMatchObject({ status: 400, code: "invalid_request" })
    }
  })

  it("answers 401 without a usable key, before reading the body", async () => {
    const json = { "content-type": "application/json" }
    const missing = await errorOf(await server.request(render, { method: "POST", headers: json, key: null, body: "{" }))
    expect(missing).toMatchObject({ status: 401, code: "unauthenticated" })
    const unknown = await errorOf(
      await server.request(render, { method: "POST", headers: json, key: `gwc_${"x".repeat(40)}`, body: "{}" })
    )
    expect(unknown).toMatchObject({ status: 401, code: "unauthenticated" })
  })

  it("keeps the media type and size limits, declared or streamed", async () => {
    const form = await errorOf(await post(render, "a=b", { "content-type": "application/x-www-form-urlencoded" }))
    expect(form).toMatchObject({ status: 415, code: "unsupported_media_type" })
    const big = JSON.stringify({ variables: { text: "x".repeat(MAX_BODY) } })
    expect(await errorOf(await post(render, big))).toMatchObject({ status: 413, code: "payload_too_large" })
    const streamed = await fetch(`${server.baseUrl}${render}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-api-key": server.adminKey },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(big))
          controller.close()
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect(await errorOf(streamed)).toMatchObject({ status: 413, code: "payload_too_large" })
  })

  it("answers an unknown prompt with 404 and a request id", async () => {
    const response = await post(render, JSON.stringify({ variables: {} }))
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    expect(await errorOf(response)).toMatchObject({ status: 404, code: "not_found" })
  })

  it("is in the OpenAPI document with the rest of the API", async () => {
    const document = await jsonOf(await server.request("/v1/openapi.json", { key: null }))
    expect(Object.keys(document.paths["/v1/prompts/{promptId}/render"])).toEqual(["post"])
    expect(document.paths["/v1/prompts/{promptId}"]).toBeDefined()
    expect(document.paths["/v1/workspaces"]).toBeDefined()
  })
})

describe("request ids", () => {
  it("echoes the client's x-request-id", async () => {
    const response = await server.request("/healthz", { headers: { "x-request-id": "client-chosen.42" } })
    expect(response.headers.get("x-request-id")).toBe("client-chosen.42")
  })

  it("makes one when the client sent none or an unusable one, on errors too", async () => {
    const plain = await server.request("/v1/nowhere")
    expect(plain.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    const junk = await server.request("/healthz", { headers: { "x-request-id": "bad id with spaces" } })
    expect(junk.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe("operational endpoints", () => {
  it("answers /healthz and /readyz without a key", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const response = await server.request(path, { key: null })
      expect(response.status).toBe(200)
      expect(await jsonOf(response)).toEqual({ status: "ok" })
    }
  })

  it("serves /docs offline, compressed, with caching headers", async () => {
    const response = await fetch(`${server.baseUrl}/docs`, { headers: { "accept-encoding": "gzip" } })
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toMatch(/max-age=\d+/)
    const etag = response.headers.get("etag")
    expect(etag).toBeTruthy()
    const html = await response.text()
    expect(html).toContain("<html")
    expect(html).not.toMatch(/<script[^>]+src="https?:/)

    // fetch decompresses transparently; read the raw bytes with node's http to see the encoding.
    const { request } = await import("node:http")
    const raw = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
      request(`${server.baseUrl}/docs`, { headers: { "accept-encoding": "gzip" } }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c) => chunks.push(c))
        res.on("end", () => resolve({ encoding: res.headers["content-encoding"], bytes: Buffer.concat(chunks) }))
      })
        .on("error", reject)
        .end()
    })
    expect(raw.encoding).toBe("gzip")
    expect(raw.bytes.length).toBeLessThan(gunzipSync(raw.bytes).length / 2)

    const revalidated = await fetch(`${server.baseUrl}/docs`, { headers: { "if-none-match": etag! } })
    expect(revalidated.status).toBe(304)
  })
})
