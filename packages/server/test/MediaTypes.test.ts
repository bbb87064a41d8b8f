/**
 * One rule for the media type of request bodies, decided at the edge for every route: `application/json`,
 * with any parameters, in any case. Every refusal is the envelope's 415; every acceptance reaches the
 * handler. Before, `application/vnd.x+json` passed the edge and HttpApi refused it with a text/plain 415,
 * and the render route accepted it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

const REFUSED = [
  "application/vnd.x+json",
  "application/json-patch+json",
  "application/problem+json; charset=utf-8",
  "application/jsonx",
  "text/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x"
]

const ACCEPTED = [
  "application/json",
  "Application/JSON",
  "application/json; charset=utf-8",
  "application/json;charset=UTF-8"
]

const post = (path: string, contentType: string, body: string) =>
  server.request(path, { method: "POST", headers: { "content-type": contentType }, body })

const expectEnvelope415 = async (response: Response) => {
  expect(response.headers.get("content-type")).toMatch(/^application\/json/)
  expect(await errorOf(response)).toMatchObject({ status: 415, success: false, code: "unsupported_media_type" })
}

describe("the media type of request bodies", () => {
  it.each(REFUSED)("refuses %s with the envelope's 415, on HttpApi routes and the render route", async (type) => {
    await expectEnvelope415(await post("/v1/workspaces", type, JSON.stringify({ name: "refused" })))
    await expectEnvelope415(await post("/v1/prompts/any/render", type, JSON.stringify({ variables: {} })))
    // A declared media type is held to the rule even without a body.
    const empty = await server.request("/v1/prompts/any/makeDefault", {
      method: "PUT",
      headers: { "content-type": type }
    })
    await expectEnvelope415(empty)
    const listed = await jsonOf(await server.request("/v1/workspaces?page_size=1000"))
    expect(listed.data.some((w: { name: string }) => w.name === "refused")).toBe(false)
  })

  it.each(ACCEPTED)("passes %s on to the handler, on HttpApi routes and the render route", async (type) => {
    const created = await post("/v1/workspaces", type, JSON.stringify({ name: `accepted ${ACCEPTED.indexOf(type)}` }))
    expect(created.status).toBe(201)
    // The render handler looked the prompt up: the body was accepted and read.
    const rendered = await errorOf(
      await post("/v1/prompts/no-such-prompt/render", type, JSON.stringify({ variables: {} }))
    )
    expect(rendered).toMatchObject({ status: 404, code: "not_found" })
    expect(rendered.message).toContain("no-such-prompt")
  })
})
