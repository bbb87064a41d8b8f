/**
 * The example's test, run by CI on plain Node against the packed packages: on a memory engine and on a PGlite
 * data directory (closed and reopened), bootstrap, create and render a prompt over HTTP through the Express
 * app, mount the handler on a bare node:http server, answer a web-standard Request directly, and close.
 */
import type { GatewayControlOptions } from "@gateway-control/server"
import assert from "node:assert/strict"
import { once } from "node:events"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createApp } from "./app.ts"
import { renderGreeting } from "./client.ts"

const listen = async (handler: RequestListener) => {
  const server = createServer(handler).listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
  }
}

/** What these checks read of an answer. */
interface Answer {
  readonly success?: boolean
  readonly total?: number
  readonly openapi?: string
  readonly data?: { readonly model?: string; readonly prompt?: string }
}

const call = async (url: string, key: string, body?: unknown) => {
  const response = await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    headers: { "x-service-api-key": key, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { status: response.status, body: (await response.json()) as Answer }
}

const render = (url: string, key: string) => call(url, key, { variables: { name: "Ada" } })

/** Opens an engine, bootstraps it, saves a prompt through the app and renders it; answers the key. */
const firstRun = async (options: GatewayControlOptions) => {
  const { app, gateway } = await createApp(options)
  const boot = await gateway.bootstrap({ organisationName: "Acme", ownerEmail: "owner@acme.test" })
  const http = await listen(app)

  assert.deepEqual(await (await fetch(http.url("/hello"))).json(), { hello: "from the host app" })
  const created = await call(http.url("/gateway/v1/prompts"), boot.api_key, {
    name: "Greeting",
    workspace_id: boot.workspace_id,
    string: "Hello {{name}}!",
    model: "gpt-4o-mini"
  })
  assert.equal(created.status, 201, JSON.stringify(created.body))
  const rendered = await render(http.url("/gateway/v1/prompts/greeting/render"), boot.api_key)
  assert.equal(rendered.status, 200, JSON.stringify(rendered.body))
  assert.deepEqual(rendered.body.data, { model: "gpt-4o-mini", prompt: "Hello Ada!" })

  // The typed client, as another service would call the gateway.
  const viaClient = await renderGreeting(http.url("/gateway"), boot.api_key, "Grace")
  assert.deepEqual(viaClient, { model: "gpt-4o-mini", prompt: "Hello Grace!" })

  // The same engine on a bare node:http server, and as a web-standard handler with no server at all.
  const bare = await listen(gateway.nodeHandler)
  const listed = await call(bare.url("/gateway/v1/prompts"), boot.api_key)
  assert.equal(listed.status, 200)
  assert.equal(listed.body.total, 1)
  await bare.close()
  const openapi = await gateway.fetch(new Request("http://embedded/gateway/v1/openapi.json"))
  assert.equal(openapi.status, 200)
  assert.match(((await openapi.json()) as Answer).openapi ?? "", /^3\./)
  const refused = await gateway.fetch(new Request("http://embedded/gateway/v1/prompts"))
  assert.equal(refused.status, 401)
  assert.equal(((await refused.json()) as Answer).success, false)

  await http.close()
  await gateway.close()
  return boot.api_key
}

await firstRun({ store: "memory", logLevel: "warn" })
console.log("embed-express: memory engine served, rendered and closed")

const dataDir = await mkdtemp(join(tmpdir(), "gateway-control-example-"))
try {
  const key = await firstRun({ store: "pglite", dataDir, logLevel: "warn" })
  // Reopened: the prompt and the key are still there, and the store is not bootstrapped twice.
  const { app, gateway } = await createApp({ store: "pglite", dataDir, logLevel: "warn" })
  const http = await listen(app)
  const rendered = await render(http.url("/gateway/v1/prompts/greeting/render"), key)
  assert.equal(rendered.status, 200, JSON.stringify(rendered.body))
  assert.equal(rendered.body.data?.prompt, "Hello Ada!")
  await assert.rejects(gateway.bootstrap({ organisationName: "Again", ownerEmail: "again@acme.test" }))
  await http.close()
  await gateway.close()
  console.log("embed-express: PGlite engine reopened after close, data and key intact")
} finally {
  await rm(dataDir, { recursive: true, force: true })
}
