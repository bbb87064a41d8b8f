/**
 * The README's curl example, run as written: a shell with GATEWAY and KEY set, and the `curl` on the PATH.
 * ReadmeExamples.test.ts checks the README quotes it verbatim.
 */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "./support/TestServer.ts"

const curlExample = String.raw`
# #region readme-curl
curl -s "$GATEWAY/v1/prompts/support-bot@production/render" \
  -H "x-portkey-api-key: $KEY" \
  -H 'content-type: application/json' \
  -d '{"variables": {"question": "Where is my order?"}}'
# #endregion readme-curl
`

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
  const created = await server.send("POST", "/v1/prompts", {
    workspace_id: server.workspaceId,
    name: "Support bot",
    string: JSON.stringify([{ role: "user", content: "{{question}}" }]),
    model: "gpt-4o"
  })
  expect(created.status).toBe(201)
})
afterAll(() => server.close())

describe("curl", () => {
  it("renders a prompt with the README's command", async () => {
    const { stdout } = await promisify(execFile)("bash", ["-c", curlExample], {
      env: { PATH: process.env.PATH, GATEWAY: server.baseUrl, KEY: server.adminKey }
    })
    expect(JSON.parse(stdout)).toEqual({
      success: true,
      data: { model: "gpt-4o", messages: [{ role: "user", content: "Where is my order?" }] }
    })
  })
})
