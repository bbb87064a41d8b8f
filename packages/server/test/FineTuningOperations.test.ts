/**
 * The fine-tuning family through providers (issue #29, point 6): create, retrieve, cancel, a job's events and
 * checkpoints, and the list, through the official OpenAI Node SDK against fake providers on 127.0.0.1. For each
 * operation the rule of stored secrets holds: a stored key (an integration's, through `@slug`; a virtual key's)
 * reaches only its own host, as the fakes' logs show; a host the call names goes only with the call's own key.
 * Creating and cancelling are audited; timeouts answer 504, bodies that are no job 502, a provider's 4xx passes.
 */
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FakeProvider, startFakeProvider } from "./support/FakeProvider.ts"
import { createVirtualKey, type FineTuningGateway, startFineTuningGateway } from "./support/FineTuningGateway.ts"
import { makeSchemaValidator, readPortkeyOpenApi } from "./support/PortkeyOpenApi.ts"
import { availableStores, errorOf, jsonOf } from "./support/TestServer.ts"

/** What the SDK sends as its own bearer key: never a stored call's key, so it must reach no provider. */
const CLIENT_SIDE_KEY = "sk-client-side-never-sent"
const document = readPortkeyOpenApi()

describe.each(availableStores)("fine-tuning operations through providers on %s", (store) => {
  let gateway: FineTuningGateway
  let primary: FakeProvider
  let integrationHost: FakeProvider
  let keyHost: FakeProvider
  let chosen: FakeProvider
  let workspaceKey: string

  const fakes = () => ({ primary, integrationHost, keyHost, chosen })
  /** Requests each fake got while `run` ran. */
  const reaching = async (run: () => Promise<unknown>) => {
    const before = Object.fromEntries(Object.entries(fakes()).map(([name, fake]) => [name, fake.requests.length]))
    await run()
    return Object.fromEntries(
      Object.entries(fakes()).map(([name, fake]) => [name, fake.requests.slice(before[name])])
    ) as Record<keyof ReturnType<typeof fakes>, FakeProvider["requests"]>
  }

  const sdk = (headers: Record<string, string>, apiKey = CLIENT_SIDE_KEY) =>
    new OpenAI({
      apiKey,
      baseURL: `${gateway.server.baseUrl}/v1`,
      defaultHeaders: { "x-service-api-key": workspaceKey, ...headers },
      maxRetries: 0
    })

  /** Every operation of the family, through the SDK, on a job it creates: what each answered. */
  const everyOperation = async (client: OpenAI) => {
    const job = await client.fineTuning.jobs.create({
      model: "gpt-4o-mini-2024-07-18",
      training_file: "file-abc",
      suffix: "gateway",
      hyperparameters: { n_epochs: 2 },
      metadata: { team: "research" }
    })
    const read = await client.fineTuning.jobs.retrieve(job.id)
    const events: Array<string> = []
    for await (const event of client.fineTuning.jobs.listEvents(job.id, { limit: 2 })) events.push(event.id)
    const checkpoints: Array<string> = []
    for await (const checkpoint of client.fineTuning.jobs.checkpoints.list(job.id, { limit: 2 })) {
      checkpoints.push(checkpoint.id)
    }
    const cancelled = await client.fineTuning.jobs.cancel(job.id)
    const listed = await client.fineTuning.jobs.list({ limit: 2 })
    return { job, read, events, checkpoints, cancelled, listed: listed.data.map((j) => j.id) }
  }

  beforeAll(async () => {
    ;[primary, integrationHost, keyHost, chosen] = await Promise.all(
      ["primary", "integration", "vkey", "chosen"].map((name) => startFakeProvider(name))
    )
    gateway = await startFineTuningGateway({ store, primary, trusted: [integrationHost, keyHost, chosen] })
    workspaceKey = (await jsonOf(
      await gateway.server.send("POST", "/v1/api-keys/workspace/service", {
        name: "fine-tuning operations",
        workspace_id: gateway.server.workspaceId,
        scopes: ["completions.write"]
      })
    )).key
    // An organisation's integration whose destination is its own custom host, shared, and the workspace's provider.
    const made = await gateway.server.send("POST", "/v1/integrations", {
      name: "Fine-tuning",
      slug: "ft-prod",
      ai_provider_id: "openai",
      key: "sk-good",
      configurations: { custom_host: integrationHost.baseUrl }
    })
    expect(made.status, await made.clone().text()).toBe(201)
    const shared = await gateway.server.send("PUT", "/v1/integrations/ft-prod/workspaces", {
      workspaces: [{ id: gateway.server.workspaceId, enabled: true }]
    })
    expect(shared.status).toBe(200)
    const provider = await gateway.server.send("POST", "/v1/providers", {
      name: "Fine-tuning",
      slug: "ft",
      integration_id: "ft-prod",
      workspace_id: gateway.server.workspaceId
    })
    expect(provider.status, await provider.clone().text()).toBe(201)
    await gateway.api(createVirtualKey({
      name: "hosted",
      slug: "hosted",
      provider: "openai",
      key: "sk-good",
      custom_host: keyHost.baseUrl
    }))
  })
  afterAll(async () => {
    await gateway?.close()
    await Promise.all(Object.values(fakes()).map((fake) => fake?.close()))
  })

  it("runs every operation through a provider (@slug): the integration's key reaches only its own host", async () => {
    let answers: Awaited<ReturnType<typeof everyOperation>> | undefined
    const seen = await reaching(async () => {
      answers = await everyOperation(sdk({ "x-service-provider": "@ft" }))
    })
    expect(answers!.job).toMatchObject({
      object: "fine_tuning.job",
      status: "validating_files",
      model: "gpt-4o-mini-2024-07-18",
      training_file: "file-abc"
    })
    expect(answers!.job.id).toMatch(/^ftjob-integration-new-/)
    expect(answers!.read.id).toBe(answers!.job.id)
    expect(answers!.events).toEqual(Array.from({ length: 5 }, (_, i) => `ftevent-${answers!.job.id}-${i}`))
    expect(answers!.checkpoints).toEqual(Array.from({ length: 3 }, (_, i) => `ftckpt-${answers!.job.id}-${i}`))
    expect(answers!.cancelled).toMatchObject({ id: answers!.job.id, status: "cancelled" })
    expect(answers!.listed).toEqual(["ftjob-integration-000", "ftjob-integration-001"])

    // The fake's log: only the stored key, only at the integration's host; nothing anywhere else.
    expect(seen.integrationHost.map((r) => `${r.method} ${new URL(r.url, "http://x").pathname}`)).toEqual([
      "POST /v1/fine_tuning/jobs",
      `GET /v1/fine_tuning/jobs/${answers!.job.id}`,
      `GET /v1/fine_tuning/jobs/${answers!.job.id}/events`,
      `GET /v1/fine_tuning/jobs/${answers!.job.id}/events`,
      `GET /v1/fine_tuning/jobs/${answers!.job.id}/events`,
      `GET /v1/fine_tuning/jobs/${answers!.job.id}/checkpoints`,
      `GET /v1/fine_tuning/jobs/${answers!.job.id}/checkpoints`,
      `POST /v1/fine_tuning/jobs/${answers!.job.id}/cancel`,
      "GET /v1/fine_tuning/jobs"
    ])
    expect(new Set(seen.integrationHost.map((r) => r.authorization))).toEqual(new Set(["Bearer sk-good"]))
    expect([...seen.primary, ...seen.keyHost, ...seen.chosen]).toEqual([])
    // The body the SDK sent is the body the provider got.
    expect(seen.integrationHost[0].body).toEqual({
      model: "gpt-4o-mini-2024-07-18",
      training_file: "file-abc",
      suffix: "gateway",
      hyperparameters: { n_epochs: 2 },
      metadata: { team: "research" }
    })
  })

  it("runs every operation with a virtual key: its key reaches only its own custom host", async () => {
    const seen = await reaching(() => everyOperation(sdk({ "x-service-virtual-key": "hosted" })))
    expect(seen.keyHost).toHaveLength(9)
    expect(new Set(seen.keyHost.map((r) => r.authorization))).toEqual(new Set(["Bearer sk-good"]))
    expect([...seen.primary, ...seen.integrationHost, ...seen.chosen]).toEqual([])
  })

  it("sends the call's own key to the host the call names, and nothing else", async () => {
    const seen = await reaching(() =>
      everyOperation(sdk({ "x-service-provider": "openai", "x-service-custom-host": chosen.baseUrl }, "sk-good"))
    )
    expect(seen.chosen).toHaveLength(9)
    expect(new Set(seen.chosen.map((r) => r.authorization))).toEqual(new Set(["Bearer sk-good"]))
    expect([...seen.primary, ...seen.integrationHost, ...seen.keyHost]).toEqual([])
  })

  it("refuses each operation that would send a stored key to a host the call names, sending nothing", async () => {
    const selections: ReadonlyArray<Record<string, string>> = [
      { "x-service-provider": "@ft" },
      { "x-service-virtual-key": "hosted" }
    ]
    for (const selection of selections) {
      const client = sdk({ ...selection, "x-service-custom-host": chosen.baseUrl })
      const calls: ReadonlyArray<() => Promise<unknown>> = [
        () => client.fineTuning.jobs.create({ model: "m", training_file: "f" }),
        () => client.fineTuning.jobs.retrieve("ftjob-chosen-000"),
        () => client.fineTuning.jobs.cancel("ftjob-chosen-000"),
        () => client.fineTuning.jobs.listEvents("ftjob-chosen-000"),
        () => client.fineTuning.jobs.checkpoints.list("ftjob-chosen-000"),
        () => client.fineTuning.jobs.list()
      ]
      for (const call of calls) {
        const connections = chosen.connections()
        const error = await call().then(() => undefined, (e: unknown) => e)
        expect(error).toBeInstanceOf(OpenAI.BadRequestError)
        expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("stored")
        expect(chosen.connections()).toBe(connections)
      }
    }
  })

  it("refuses custom hosts that lead inside, for each operation, before connecting", async () => {
    const client = sdk(
      { "x-service-provider": "openai", "x-service-custom-host": "http://169.254.169.254/v1" },
      "sk-good"
    )
    for (
      const call of [
        () => client.fineTuning.jobs.create({ model: "m", training_file: "f" }),
        () => client.fineTuning.jobs.retrieve("ftjob-1"),
        () => client.fineTuning.jobs.cancel("ftjob-1"),
        () => client.fineTuning.jobs.listEvents("ftjob-1"),
        () => client.fineTuning.jobs.checkpoints.list("ftjob-1")
      ]
    ) {
      const error = await call().then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(OpenAI.BadRequestError)
    }
    expect(gateway.connector.attempts.filter((a) => a.addresses.includes("169.254.169.254"))).toEqual([])
  })

  it("audits creating and cancelling, with the job's id, the status answered and who asked", async () => {
    const client = sdk({ "x-service-provider": "@ft" })
    const job = await client.fineTuning.jobs.create({ model: "gpt-4o-mini-2024-07-18", training_file: "file-audit" })
    await client.fineTuning.jobs.cancel(job.id)
    const missing = await client.fineTuning.jobs.cancel("ftjob-nope").then(() => undefined, (e: unknown) => e)
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError)
    const records = (await jsonOf(
      await gateway.server.request("/v1/audit-logs?resource_type=fine_tuning_job&page_size=1000")
    )).records as Array<Record<string, unknown>>
    const mine = records.filter((r) => r.resource_id === job.id || r.resource_id === "ftjob-nope")
    expect(mine.map((r) => [r.action, r.resource_id, r.response_status_code]).sort()).toEqual([
      ["cancel", "ftjob-nope", 404],
      ["cancel", job.id, 200],
      ["create", job.id, 200]
    ].sort())
    const created = mine.find((r) => r.action === "create")!
    expect(created).toMatchObject({
      method: "POST",
      uri: "/v1/fine_tuning/jobs",
      workspace_id: gateway.server.workspaceId,
      request_body: { model: "gpt-4o-mini-2024-07-18", training_file: "file-audit" }
    })
    expect(JSON.stringify(records)).not.toContain("sk-good")
  })

  it("refuses a bad creation body by name, sending nothing and recording the refusal", async () => {
    const before = integrationHost.requests.length
    const refused = async (body: unknown) =>
      errorOf(
        await gateway.server.request("/v1/fine_tuning/jobs", {
          method: "POST",
          key: workspaceKey,
          headers: { "x-service-provider": "@ft", "content-type": "application/json" },
          body: JSON.stringify(body)
        })
      )
    expect(await refused({ training_file: "f" })).toMatchObject({ status: 400, param: "model" })
    expect(await refused({ model: "m", training_file: "f", hyperparameters: { n_epochs: 0 } })).toMatchObject({
      status: 400,
      param: "hyperparameters.n_epochs"
    })
    expect(await refused({ model: "m", training_file: "f", epochs: 3 })).toMatchObject({ status: 400, param: "epochs" })
    expect(await refused({ model: "m", training_file: "f", portkey_options: {} })).toMatchObject({
      status: 400,
      param: "portkey_options"
    })
    expect(integrationHost.requests.length).toBe(before)
    const records = (await jsonOf(
      await gateway.server.request("/v1/audit-logs?resource_type=fine_tuning_job&action=create&page_size=1000")
    )).records as Array<Record<string, unknown>>
    expect(records.filter((r) => r.response_status_code === 400).length).toBeGreaterThanOrEqual(4)
  })

  it("refuses a job id no provider gives and unknown query parameters", async () => {
    const call = (path: string) =>
      gateway.server.request(path, { key: workspaceKey, headers: { "x-service-provider": "@ft" } })
    // `..` and `%2E%2E` are dot segments every URL parser resolves; three dots are an id, and no provider's.
    expect(await errorOf(await call("/v1/fine_tuning/jobs/..."))).toMatchObject({
      status: 400,
      param: "fine_tuning_job_id"
    })
    // A path id past the input rules' bound is refused before the provider is asked.
    const sentBefore = integrationHost.requests.length
    expect((await errorOf(await call(`/v1/fine_tuning/jobs/${"x".repeat(300)}/events`))).status).toBeGreaterThanOrEqual(
      400
    )
    expect(integrationHost.requests.length).toBe(sentBefore)
    expect(await errorOf(await call("/v1/fine_tuning/jobs/ftjob-1/events?order=desc"))).toMatchObject({
      status: 400,
      param: "order"
    })
    expect(await errorOf(await call("/v1/fine_tuning/jobs/ftjob-1?limit=1"))).toMatchObject({
      status: 400,
      param: "limit"
    })
    // An id with a slash stays one path segment at the provider.
    const before = integrationHost.requests.length
    const response = await call("/v1/fine_tuning/jobs/a%2Fb")
    expect(response.status).toBe(404)
    expect(integrationHost.requests.slice(before).map((r) => r.url)).toEqual(["/v1/fine_tuning/jobs/a%2Fb"])
  })

  it("passes a provider's 4xx through, answers 502 for bodies that are no job and 504 when it is slow", async () => {
    const withKey = (key: string, timeout?: number) =>
      sdk({
        "x-service-config": JSON.stringify({
          provider: "openai",
          api_key: key,
          ...(timeout === undefined ? {} : { request_timeout: timeout })
        })
      })
    const failure = (call: Promise<unknown>) => call.then(() => undefined, (e: unknown) => e as { status?: number })
    const limited = await failure(withKey("sk-429").fineTuning.jobs.create({ model: "m", training_file: "f" }))
    expect(limited).toBeInstanceOf(OpenAI.RateLimitError)
    expect((await failure(withKey("sk-wrong").fineTuning.jobs.cancel("ftjob-primary-000")))?.status).toBe(401)
    for (
      const call of [
        (c: OpenAI) => c.fineTuning.jobs.create({ model: "m", training_file: "f" }),
        (c: OpenAI) => c.fineTuning.jobs.retrieve("ftjob-primary-000"),
        (c: OpenAI) => c.fineTuning.jobs.cancel("ftjob-primary-000"),
        (c: OpenAI) => c.fineTuning.jobs.listEvents("ftjob-primary-000"),
        (c: OpenAI) => c.fineTuning.jobs.checkpoints.list("ftjob-primary-000")
      ]
    ) {
      expect((await failure(call(withKey("sk-broken"))))?.status).toBe(502)
      expect((await failure(call(withKey("sk-slow", 300))))?.status).toBe(504)
    }
  })

  it.skipIf(document === undefined)("answers in the shapes of Portkey's document", async () => {
    const client = sdk({ "x-service-provider": "@ft" })
    const job = await client.fineTuning.jobs.create({ model: "gpt-4o-mini-2024-07-18", training_file: "file-abc" })
    const raw = (path: string, method = "GET") =>
      gateway.server.request(path, { method, key: workspaceKey, headers: { "x-service-provider": "@ft" } }).then(
        jsonOf
      )
    const checks: ReadonlyArray<readonly [string, unknown]> = [
      ["FineTuningJob", await raw(`/v1/fine_tuning/jobs/${job.id}`)],
      ["ListFineTuningJobEventsResponse", await raw(`/v1/fine_tuning/jobs/${job.id}/events`)],
      ["ListFineTuningJobCheckpointsResponse", await raw(`/v1/fine_tuning/jobs/${job.id}/checkpoints`)],
      ["FineTuningJob", await raw(`/v1/fine_tuning/jobs/${job.id}/cancel`, "POST")],
      ["ListPaginatedFineTuningJobsResponse", await raw("/v1/fine_tuning/jobs")]
    ]
    for (const [schema, body] of checks) expect(makeSchemaValidator(document!, schema)(body), schema).toEqual([])
  })
})
