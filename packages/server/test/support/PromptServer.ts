/**
 * One test server per test file with prompt helpers: unique names, creating a prompt, rendering one.
 * Call `usePromptServer()` at the top of a test file; its helpers read the server once it has started.
 */
import type { GatewayControlClientShape } from "@gateway-control/client"
import type { CreatePrompt } from "@gateway-control/domain"
import { afterAll, beforeAll } from "vitest"
import { startTestServer, type TestServer } from "./TestServer.ts"

export const chat = (messages: Array<Record<string, unknown>>) => JSON.stringify(messages)

export const simpleChat = chat([{ role: "system", content: "You are {{persona}}." }, {
  role: "user",
  content: "{{question}}"
}])

/** The typed render of `ref` with `body` (`variables` and request fields), for `api` and `refusal`. */
export const renderCall = (ref: string, body: Record<string, unknown>) => (client: GatewayControlClientShape) =>
  client.prompts.render({ params: { promptId: ref }, payload: body })

export const usePromptServer = () => {
  let server: TestServer | undefined
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server?.close())

  const current = (): TestServer => {
    if (server === undefined) throw new Error("the test server has not started")
    return server
  }
  let counter = 0
  const unique = (prefix: string) => `${prefix}-${++counter}`
  const send = (method: string, path: string, body: unknown, key?: string) => current().send(method, path, body, key)
  const api: TestServer["api"] = (call, key) => current().api(call, key)
  const refusal: TestServer["refusal"] = (call, key) => current().refusal(call, key)
  /** A prompt in the server's workspace under a unique name, unless `body` says otherwise; it must be created. */
  const createPrompt = (body: Omit<typeof CreatePrompt.Type, "name"> & { readonly name?: string }) =>
    api((client) =>
      client.prompts.create({ payload: { workspace_id: current().workspaceId, name: unique("prompt"), ...body } })
    )
  /** A render over raw HTTP, for tests of its headers and wire. */
  const render = (ref: string, body: Record<string, unknown>, key?: string) =>
    send("POST", `/v1/prompts/${ref}/render`, body, key)
  /** The rendered request body of a render that must succeed. */
  const rendered = async (ref: string, body: Record<string, unknown>, key?: string) =>
    (await api(renderCall(ref, body), key)).data
  return { server: current, unique, send, api, refusal, createPrompt, render, rendered }
}
