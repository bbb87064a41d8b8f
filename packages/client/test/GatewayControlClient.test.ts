/**
 * The typed client against a real server (memory store): a success in every group, render's success and
 * errors, and the envelope's errors decoded into classes a caller catches by tag.
 */
import { Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientResponse } from "effect/http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../../server/test/support/TestServer.ts"
import { BadRequest, ForbiddenError, GatewayControlClient, NotFoundError, Unauthorized } from "../src/index.ts"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.close())

/** Runs a program against the server's client, built from the layers a user provides. */
const run = <A, E>(program: Effect.Effect<A, E, GatewayControlClient>, apiKey?: string | Redacted.Redacted<string>) =>
  Effect.runPromise(
    program.pipe(
      Effect.provide(
        GatewayControlClient.layer({ baseUrl: server.baseUrl, apiKey: apiKey ?? Redacted.make(server.adminKey) }).pipe(
          Layer.provide(FetchHttpClient.layer)
        )
      )
    )
  )

const client = Effect.service(GatewayControlClient)

describe("a success in every group", () => {
  it("answers every group with its decoded success", async () => {
    const answers = await run(Effect.gen(function*() {
      const api = yield* client
      const health = yield* api.healthz()
      const ready = yield* api.readyz()
      const workspace = yield* api.workspaces.create({ payload: { name: "Client workspace" } })
      const workspaces = yield* api.workspaces.list({ query: {} })
      const key = yield* api.apiKeys.create({
        params: { type: "workspace", subType: "service" },
        payload: { name: "client key", scopes: ["prompts.read"], workspace_id: workspace.id }
      })
      const users = yield* api.users.list({ query: {} })
      const scopes = yield* api.scopes.list()
      const prompt = yield* api.prompts.create({
        payload: { workspace_id: workspace.id, name: "Greeting", string: "Hello {{name}}", model: "m" }
      })
      const details = yield* api.prompts.get({ params: { promptId: prompt.id }, query: {} })
      const integration = yield* api.mcpRegistry.createIntegration({
        payload: { name: "Linear", url: "https://mcp.linear.app/sse", auth_type: "oauth_auto", transport: "sse" }
      })
      const virtualKeys = yield* api.virtualKeys.list({ query: { workspace_id: workspace.id } })
      const audit = yield* api.auditLogs.list({ query: { action: "create", resource_type: "prompt" } })
      return {
        health,
        ready,
        workspace,
        workspaces,
        key,
        users,
        scopes,
        prompt,
        details,
        integration,
        virtualKeys,
        audit
      }
    }))
    expect(answers.health).toEqual({ status: "ok" })
    expect(answers.ready).toEqual({ status: "ok" })
    expect(answers.workspace).toMatchObject({ object: "workspace", slug: "client-workspace" })
    expect(answers.workspaces.data.map((w) => w.id)).toContain(answers.workspace.id)
    expect(answers.key).toMatchObject({ object: "api-key", key: expect.stringMatching(/^gwc_/) })
    expect(answers.users.data.map((u) => u.email)).toContain("owner@example.com")
    expect(answers.scopes.data).toContain("prompts.render")
    expect(answers.prompt).toMatchObject({ object: "prompt", slug: "greeting", version: 1 })
    expect(answers.details).toMatchObject({ id: answers.prompt.id, object: "prompt", versions: [{ version: 1 }] })
    expect(answers.integration).toMatchObject({ id: expect.any(String), slug: "linear" })
    expect(answers.virtualKeys).toMatchObject({ object: "list", data: [], total: 0 })
    expect(answers.audit.records.map((r) => r.resource_id)).toContain(answers.prompt.id)
  })

  it("takes the key as a string as well as a Redacted", async () => {
    const scopes = await run(Effect.flatMap(client, (api) => api.scopes.list()), server.adminKey)
    expect(scopes.object).toBe("list")
  })
})

describe("rendering", () => {
  it("renders with a typed success, among the prompts", async () => {
    const rendered = await run(Effect.gen(function*() {
      const api = yield* client
      const prompt = yield* api.prompts.create({
        payload: { workspace_id: server.workspaceId, name: "Render me", string: "Summarise: {{text}}", model: "m" }
      })
      return yield* api.prompts.render({ params: { promptId: prompt.slug }, payload: { variables: { text: "hi" } } })
    }))
    expect(rendered).toEqual({ success: true, data: { model: "m", prompt: "Summarise: hi" } })
  })

  it("fails with typed errors: an unknown prompt, a body breaking a rule, a key without the scope", async () => {
    const outcome = await run(Effect.gen(function*() {
      const api = yield* client
      const prompt = yield* api.prompts.create({
        payload: { workspace_id: server.workspaceId, name: "Strict", string: "x", model: "m" }
      })
      const missing = yield* Effect.flip(
        api.prompts.render({ params: { promptId: "no-such-prompt" }, payload: { variables: {} } })
      )
      const badBody = yield* Effect.flip(api.prompts.render({ params: { promptId: prompt.id }, payload: {} }))
      const narrow = yield* api.apiKeys.create({
        params: { type: "organisation", subType: "service" },
        payload: { name: "read only", scopes: ["prompts.read"] }
      })
      return { prompt, missing, badBody, narrow }
    }))
    expect(outcome.missing).toBeInstanceOf(NotFoundError)
    expect(outcome.missing).toMatchObject({ _tag: "NotFoundError", error: { code: "not_found" } })
    expect(outcome.badBody).toBeInstanceOf(BadRequest)
    expect(outcome.badBody).toMatchObject({ error: { code: "invalid_request", param: "variables" } })

    const denied = await run(
      Effect.flatMap(
        client,
        (api) =>
          api.prompts.render({ params: { promptId: outcome.prompt.id }, payload: { variables: {} } }).pipe(
            Effect.map(() => "rendered"),
            Effect.catchTag("ForbiddenError", (error) => Effect.succeed(error))
          )
      ),
      outcome.narrow.key
    )
    expect(denied).toBeInstanceOf(ForbiddenError)
    expect(denied).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining("prompts.render") } })
  })
})

describe("errors a caller catches by tag", () => {
  it("NotFoundError, BadRequest naming its field, ConflictError", async () => {
    const caught = await run(Effect.gen(function*() {
      const api = yield* client
      const notFound = yield* api.prompts.get({ params: { promptId: "prompt_nope" }, query: {} }).pipe(
        Effect.map(() => "found"),
        Effect.catchTag("NotFoundError", (error) => Effect.succeed(`not found: ${error.error.code}`))
      )
      const invalid = yield* api.prompts.create({ payload: { name: "no workspace", string: "y" } }).pipe(
        Effect.map(() => "created"),
        Effect.catchTag("BadRequest", (error) => Effect.succeed(`invalid: ${error.error.param}`))
      )
      yield* api.workspaces.create({ payload: { name: "Twice", slug: "twice" } })
      const conflict = yield* api.workspaces.create({ payload: { name: "Twice again", slug: "twice" } }).pipe(
        Effect.map(() => "created"),
        Effect.catchTag("ConflictError", (error) => Effect.succeed(`conflict: ${error.error.param}`))
      )
      return [notFound, invalid, conflict]
    }))
    expect(caught).toEqual(["not found: not_found", "invalid: workspace_id", "conflict: slug"])
  })

  it("Unauthorized for an unknown key, from the security middleware", async () => {
    const error = await run(Effect.flip(Effect.flatMap(client, (api) => api.scopes.list())), "gwc_not-a-key")
    expect(error).toBeInstanceOf(Unauthorized)
    expect(error).toMatchObject({ _tag: "Unauthorized", error: { code: "unauthenticated" } })
  })

  it("checks the request against the contract before sending it", async () => {
    const error = await run(
      Effect.flip(Effect.flatMap(client, (api) => api.workspaces.list({ query: { page_size: 0 } })))
    )
    expect(error._tag).toBe("SchemaError")
  })
})

describe("the requests it sends", () => {
  /** A well-formed `GET /v1/scopes` answer: the catalogue and the calling key. */
  const scopesAnswer = {
    object: "list",
    data: [],
    key: { id: "k", type: "organisation-service", organisation_id: "o", workspace_id: null, user_id: null, scopes: [] },
    actions: []
  }

  /** A client over an HttpClient that records each request and answers `body` with 200. */
  const recording = (baseUrl: string, body: unknown) => {
    const sent: Array<{ readonly url: string; readonly key: string | undefined }> = []
    const httpClient = HttpClient.make((request, url) => {
      sent.push({ url: url.toString(), key: request.headers["x-service-api-key"] })
      return Effect.succeed(HttpClientResponse.fromWeb(request, Response.json(body)))
    })
    const client = Effect.runSync(
      Effect.provideService(
        GatewayControlClient.make({ baseUrl, apiKey: Redacted.make("gwc_secret") }),
        HttpClient.HttpClient,
        httpClient
      )
    )
    return { client, sent }
  }

  it("puts the key on the endpoints the security scheme covers only, not on the health checks", async () => {
    const { client, sent } = recording("http://gateway.test", { status: "ok" })
    await Effect.runPromise(client.healthz())
    const scopes = recording("http://gateway.test", scopesAnswer)
    await Effect.runPromise(scopes.client.scopes.list())
    expect(sent).toEqual([{ url: "http://gateway.test/healthz", key: undefined }])
    expect(scopes.sent).toEqual([{ url: "http://gateway.test/v1/scopes", key: "gwc_secret" }])
  })

  it("appends the endpoint's path to a base URL with a prefix", async () => {
    const { client, sent } = recording("http://example.test/gateway", scopesAnswer)
    await Effect.runPromise(client.scopes.list())
    expect(sent.map((request) => request.url)).toEqual(["http://example.test/gateway/v1/scopes"])
  })
})
