/**
 * One test server per test file with prompt helpers: unique names, creating a prompt, rendering one.
 * Call `usePromptServer()` at the top of a test file; its helpers read the server once it has started.
 */
import { afterAll, beforeAll, expect } from "vitest"
import { jsonOf, startTestServer, type TestServer } from "./TestServer.ts"

export const chat = (messages: Array<Record<string, unknown>>) => JSON.stringify(messages)

export const simpleChat = chat([{ role: "system", content: "You are {{persona}}." }, {
  role: "user",
  content: "{{question}}"
}])

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
  const createPrompt = async (body: Record<string, unknown>) => {
    const response = await send("POST", "/v1/prompts", {
      workspace_id: current().workspaceId,
      name: unique("prompt"),
      ...body
    })
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(201)
    return jsonOf(response)
  }
  const render = (ref: string, body: Record<string, unknown>, key?: string) =>
    send("POST", `/v1/prompts/${ref}/render`, body, key)
  return { server: current, unique, send, createPrompt, render }
}
