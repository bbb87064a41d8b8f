/**
 * Collections through Portkey's Node SDK at its defaults, with an admin key and with a workspace key: the
 * collections family, prompts and partials created in a collection (`collection_id`) and listed by it, the
 * default collection, and deletion refused while a collection holds anything. Answers are checked against
 * Portkey's OpenAPI response schemas (support/PortkeyOpenApi.ts).
 */
import { ScopeNames } from "@gateway-control/domain"
import { Portkey } from "portkey-ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkPortkeyAnswer } from "./support/PortkeyOpenApi.ts"
import { availableStores, errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const PROMPT_SCOPES = ScopeNames.filter((scope) => scope.startsWith("prompts."))
const text = expect.any(String)

describe.each(availableStores)("collections on %s", (store) => {
  let server: TestServer
  let admin: Portkey
  let sdk: Portkey
  let workspaceKey: string
  const client = (apiKey: string) => new Portkey({ apiKey, baseURL: `${server.baseUrl}/v1` })

  beforeAll(async () => {
    server = await startTestServer({ store })
    admin = client(server.adminKey)
    const created = await admin.apiKeys.create({
      type: "workspace",
      "sub-type": "service",
      name: "collections",
      workspace_id: server.workspaceId,
      scopes: PROMPT_SCOPES
    })
    workspaceKey = created.key!
    sdk = client(workspaceKey)
  })
  afterAll(() => server.close())

  it("create, list, retrieve, update and delete with an admin key, as Portkey documents them", async () => {
    const created = await admin.collections.create({ name: "Support", workspace_id: server.workspaceId })
    expect(created).toMatchObject({ id: text, slug: "support", workspace_id: server.workspaceId, is_default: false })
    checkPortkeyAnswer("POST", "/collections", created)

    const child = await admin.collections.create({
      name: "Support drafts",
      workspace_id: server.workspaceId,
      parent_collection_id: "support"
    })
    expect(child.parent_collection_id).toBe(created.id)

    const listed = await admin.collections.list({ workspace_id: server.workspaceId, search: "SUPPORT" })
    checkPortkeyAnswer("GET", "/collections", listed)
    expect(listed).toMatchObject({ object: "list", total: 2 })
    expect(listed.data.map((c: { slug: string }) => c.slug)).toEqual(["support", "support-drafts"])

    const retrieved = await admin.collections.retrieve("support")
    checkPortkeyAnswer("GET", "/collections/{collectionId}", retrieved)
    expect(retrieved).toMatchObject({ id: created.id, name: "Support", object: "collection" })

    const updated = await admin.collections.update(created.id, { name: "Customer support" })
    checkPortkeyAnswer("PUT", "/collections/{collectionId}", updated)
    expect(updated).toMatchObject({ id: created.id, name: "Customer support", slug: "support" })

    // A collection holding another is not deleted; once empty, it is.
    const refused = await errorOf(await server.send("DELETE", `/v1/collections/${created.id}`, undefined))
    expect(refused).toMatchObject({ status: 409, code: "conflict" })
    checkPortkeyAnswer("DELETE", "/collections/{collectionId}", await admin.collections.delete(child.id))
    expect(await admin.collections.delete(created.id)).toMatchObject({ id: created.id, deleted: true })
    expect((await errorOf(await server.request(`/v1/collections/${created.id}`))).status).toBe(404)
  })

  it("an admin key creates a prompt in a collection through the SDK, and lists by collection", async () => {
    const collection = await admin.collections.create({ name: "Bots", workspace_id: server.workspaceId })
    const prompt = await admin.prompts.create({
      name: "Order bot",
      collection_id: collection.id,
      string: "Where is order {{id}}?",
      parameters: { temperature: 0 },
      model: "gpt-4o"
    })
    expect(prompt).toMatchObject({ id: text, slug: "order-bot", version: 1 })
    // By the collection's slug too, which only one of the admin key's workspaces has. Portkey's partial creation
    // takes no collection_id (its list filters by one); ours takes it as prompts do.
    const partial = await jsonOf(
      await server.send("POST", "/v1/prompts/partials", { name: "Sign-off", string: "Thanks!", collection_id: "bots" })
    )
    expect(partial).toMatchObject({ id: text, slug: "sign-off" })

    const retrieved = await admin.prompts.retrieve(prompt.id)
    expect(retrieved).toMatchObject({ collection_id: collection.id, workspace_id: server.workspaceId })
    const inCollection = await admin.prompts.list({ collection_id: collection.id })
    expect(inCollection.data.map((p: { id: string }) => p.id)).toEqual([prompt.id])
    const partials = await sdk.prompts.partials.list({ collection_id: "bots" })
    expect(partials.data.map((p: { id: string; collection_id: string }) => [p.id, p.collection_id])).toEqual([
      [partial.id, collection.id]
    ])

    const refused = await errorOf(await server.send("DELETE", `/v1/collections/${collection.id}`, undefined))
    expect(refused).toMatchObject({ status: 409, code: "conflict" })
    expect(refused.message).toContain("1 prompt(s), 1 partial(s)")
  })

  it("a workspace key's prompts without a collection go to its workspace's default collection", async () => {
    const prompt = await sdk.prompts.create(
      {
        name: "Plain",
        string: "Hello",
        parameters: {},
        model: "gpt-4o"
      } as Parameters<typeof sdk.prompts.create>[0]
    )
    const details = await sdk.prompts.retrieve(prompt.id)
    const collections = await sdk.collections.list({})
    const defaults = collections.data.filter((c: { is_default: boolean }) => c.is_default)
    expect(defaults).toMatchObject([{ slug: "default", workspace_id: server.workspaceId, id: details.collection_id }])
    const refused = await errorOf(await server.send("DELETE", `/v1/collections/${details.collection_id}`, undefined))
    expect(refused).toMatchObject({ status: 409, code: "conflict" })
    // The reserved slug stays the default's.
    const taken = await errorOf(await server.send("POST", "/v1/collections", { name: "Default" }))
    expect(taken).toMatchObject({ status: 400, param: "workspace_id" })
    const reserved = await errorOf(
      await server.send("POST", "/v1/collections", { name: "Default", workspace_id: server.workspaceId })
    )
    expect(reserved).toMatchObject({ status: 400, param: "name" })
  })

  it("refuses a collection of another workspace than the one named, and hides another organisation's", async () => {
    const other = await jsonOf(await server.send("POST", "/v1/workspaces", { name: `Other ${store}` }))
    const theirs = await admin.collections.create({ name: "Theirs", workspace_id: other.id })
    const mismatch = await errorOf(
      await server.send("POST", "/v1/prompts", {
        name: "Misplaced",
        string: "x",
        collection_id: theirs.id,
        workspace_id: server.workspaceId
      })
    )
    expect(mismatch).toMatchObject({ status: 400, param: "collection_id" })
    // A workspace key does not see another workspace's collection, by id or slug.
    for (const ref of [theirs.id, "theirs"]) {
      const hidden = await errorOf(
        await server.send("POST", "/v1/prompts", { name: "Sneaky", string: "x", collection_id: ref }, workspaceKey)
      )
      expect(hidden).toMatchObject({ status: 404, code: "not_found" })
    }
    await expect(sdk.collections.retrieve(theirs.id)).rejects.toMatchObject({ status: 404 })
    await expect(sdk.prompts.create({ name: "Sneaky", collection_id: theirs.id, string: "x", parameters: {} } as never))
      .rejects.toMatchObject({ status: 404 })
  })
  it("moves a prompt and a partial to another collection of their workspace (SDK update), audited", async () => {
    const from = await admin.collections.create({ name: "Move from", workspace_id: server.workspaceId })
    const to = await admin.collections.create({ name: "Move to", workspace_id: server.workspaceId })
    const prompt = await sdk.prompts.create({
      name: "Mover",
      collection_id: from.id,
      string: "Hi {{name}}",
      parameters: {},
      model: "gpt-4o"
    })
    // `collection_id` alone changes the prompt, not its versions (Portkey's metadata-only update).
    const moved = await sdk.prompts.update(prompt.id, { collection_id: "move-to" })
    expect(moved).toMatchObject({ id: prompt.id, collection_id: to.id, version: 1 })
    expect(await sdk.prompts.retrieve(prompt.id)).toMatchObject({ collection_id: to.id, versions: [{ version: 1 }] })
    expect((await sdk.prompts.list({ collection_id: to.id })).data.map((p: { id: string }) => p.id)).toEqual([
      prompt.id
    ])
    expect((await sdk.prompts.list({ collection_id: from.id })).total).toBe(0)
    // A rename is kept too (it was dropped before).
    await sdk.prompts.update(prompt.id, { name: "Mover renamed" })
    expect((await sdk.prompts.retrieve(prompt.id)).name).toBe("Mover renamed")

    const partial = await jsonOf(
      await server.send("POST", "/v1/prompts/partials", { name: "Moving part", string: "x", collection_id: from.id })
    )
    const movedPartial = await jsonOf(
      await server.send("PUT", `/v1/prompts/partials/${partial.id}`, { collection_id: to.id }, workspaceKey)
    )
    expect(movedPartial).toMatchObject({ id: partial.id, collection_id: to.id, version: 1 })
    expect((await jsonOf(await server.request(`/v1/prompts/partials?collection_id=${to.id}`))).data).toEqual([
      expect.objectContaining({ id: partial.id })
    ])

    // Another workspace's collection is refused by name (admin key) or not found (workspace key); nothing moves.
    const other = await jsonOf(await server.send("POST", "/v1/workspaces", { name: `Elsewhere ${store}` }))
    const theirs = await admin.collections.create({ name: "Elsewhere", workspace_id: other.id })
    const refused = await errorOf(await server.send("PUT", `/v1/prompts/${prompt.id}`, { collection_id: theirs.id }))
    expect(refused).toMatchObject({ status: 400, param: "collection_id" })
    const refusedPartial = await errorOf(
      await server.send("PUT", `/v1/prompts/partials/${partial.id}`, { collection_id: theirs.id })
    )
    expect(refusedPartial).toMatchObject({ status: 400, param: "collection_id" })
    const hidden = await errorOf(
      await server.send("PUT", `/v1/prompts/${prompt.id}`, { collection_id: theirs.id }, workspaceKey)
    )
    expect(hidden).toMatchObject({ status: 404 })
    expect((await sdk.prompts.retrieve(prompt.id)).collection_id).toBe(to.id)
    // The source collection is empty now, so it can go.
    expect((await server.send("DELETE", `/v1/collections/${from.id}`, undefined)).status).toBe(200)

    const audit = await jsonOf(await server.request("/v1/audit-logs?action=update&resource_type=prompt&page_size=50"))
    expect(audit.records).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ resource_id: prompt.id, response_status_code: 200 }),
        expect.objectContaining({ response_status_code: 400 })
      ])
    )
  })
})
