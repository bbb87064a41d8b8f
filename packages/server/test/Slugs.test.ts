/**
 * One rule of slugs for every workspace resource kind (ResourceLookup.ts): a workspace key's slug is looked up
 * in its workspace; an admin key's in the workspace `workspace_id` names, else among all of its workspaces,
 * where exactly one may have it; when several do, 400 asks for `workspace_id` (or the id). On every store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  availableStores,
  errorOf,
  jsonOf,
  openAiProviderAt,
  startTestServer,
  type TestServer
} from "./support/TestServer.ts"

/** Each kind: where it is created, what its body is, and where one is read by reference. */
const KINDS = [
  { kind: "prompt", create: "/v1/prompts", read: "/v1/prompts", body: { string: "Hi {{name}}", model: "gpt-4o" } },
  { kind: "partial", create: "/v1/prompts/partials", read: "/v1/prompts/partials", body: { string: "Be brief." } },
  {
    kind: "virtual key",
    create: "/v1/virtual-keys",
    read: "/v1/virtual-keys",
    body: { provider: "openai", key: "sk-1" }
  },
  { kind: "config", create: "/v1/configs", read: "/v1/configs", body: { config: { provider: "openai" } } }
] as const

describe.each(availableStores)("slugs on %s", (store) => {
  let server: TestServer
  let otherWorkspaceId: string

  beforeAll(async () => {
    server = await startTestServer({
      store,
      providers: openAiProviderAt()
    })
    otherWorkspaceId = (await jsonOf(await server.send("POST", "/v1/workspaces", { name: "Second" }))).id
  })
  afterAll(() => server.close())

  it.each(KINDS)("an admin key addresses a $kind by a slug only one of its workspaces has", async (kind) => {
    const name = `Only ${kind.kind}`
    const made = await jsonOf(
      await server.send("POST", kind.create, { ...kind.body, name, workspace_id: server.workspaceId })
    )
    expect(made.slug).toBe(`only-${kind.kind.replace(" ", "-")}`)
    const found = await jsonOf(await server.request(`${kind.read}/${made.slug}`))
    expect(found.id).toBe(made.id)
    expect(found.workspace_id ?? server.workspaceId).toBe(server.workspaceId)
    // The workspace named is where the slug is looked up, and only there.
    const elsewhere = await errorOf(await server.request(`${kind.read}/${made.slug}?workspace_id=${otherWorkspaceId}`))
    expect(elsewhere).toMatchObject({ status: 404, code: "not_found" })
  })

  it.each(KINDS)("an admin key's $kind slug that two workspaces have asks for workspace_id", async (kind) => {
    const name = `Twice ${kind.kind}`
    const first = await jsonOf(
      await server.send("POST", kind.create, { ...kind.body, name, workspace_id: server.workspaceId })
    )
    const second = await jsonOf(
      await server.send("POST", kind.create, { ...kind.body, name, workspace_id: otherWorkspaceId })
    )
    expect(second.slug).toBe(first.slug)
    const ambiguous = await errorOf(await server.request(`${kind.read}/${first.slug}`))
    expect(ambiguous).toMatchObject({ status: 400, code: "invalid_request" })
    expect(ambiguous.message).toContain("workspace_id")
    expect(ambiguous.message).toContain(otherWorkspaceId)
    const named = await jsonOf(await server.request(`${kind.read}/${first.slug}?workspace_id=${otherWorkspaceId}`))
    expect(named.id).toBe(second.id)
    expect((await jsonOf(await server.request(`${kind.read}/${first.id}`))).id).toBe(first.id)
  })
})
