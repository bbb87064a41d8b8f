/**
 * Labels as resources (workspace or organisation level, the built-in three fixed), prompt versions with the
 * labels pointing at them, and the partial routes: versions, publishing an older one, metadata, deletion.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { chat, usePromptServer } from "./support/PromptServer.ts"
import { errorOf, jsonOf } from "./support/TestServer.ts"

const { createPrompt, render, send, server, unique } = usePromptServer()

let workspaceKey: string
let otherWorkspaceId: string
beforeAll(async () => {
  const made = await jsonOf(
    await send("POST", "/v1/api-keys/workspace/service", {
      name: "labels",
      workspace_id: server().workspaceId,
      scopes: ["prompts.create", "prompts.read", "prompts.list", "prompts.update", "prompts.delete", "prompts.publish"]
    })
  )
  workspaceKey = made.key
  otherWorkspaceId = (await jsonOf(await send("POST", "/v1/workspaces", { name: "Other team" }))).id
})

const read = (path: string, key?: string) => server().request(path, { key })
const text = async (ref: string) => (await jsonOf(await render(ref, { variables: { x: "!" } }))).data.prompt

describe("labels", () => {
  it("lists the built-in labels, the organisation's and the workspace's", async () => {
    const own = await jsonOf(
      await send("POST", "/v1/labels", { name: unique("own"), color_code: "#ff0000" }, workspaceKey)
    )
    expect(own).toMatchObject({ object: "label", workspace_id: server().workspaceId, color_code: "#ff0000" })
    const shared = await jsonOf(
      await send("POST", "/v1/labels", { name: unique("shared"), organisation_id: server().organisationId })
    )
    expect(shared.workspace_id).toBeUndefined()
    const theirs = await jsonOf(
      await send("POST", "/v1/labels", { name: unique("theirs"), workspace_id: otherWorkspaceId })
    )
    const listed = await jsonOf(await read("/v1/labels?page_size=1000", workspaceKey))
    const ids = listed.data.map((label: { id: string }) => label.id)
    expect(ids.slice(0, 3)).toEqual(["production", "staging", "development"])
    expect(ids).toEqual(expect.arrayContaining([own.id, shared.id]))
    expect(ids).not.toContain(theirs.id)
    expect(listed.total).toBe(listed.data.length)
    const paged = await jsonOf(await read("/v1/labels?page_size=2&current_page=1", workspaceKey))
    expect(paged.data.map((label: { id: string }) => label.id)).toEqual(ids.slice(2, 4))
    expect(await errorOf(await read(`/v1/labels/${theirs.id}`, workspaceKey))).toMatchObject({ status: 404 })
    expect((await jsonOf(await read("/v1/labels/production", workspaceKey))).workspace_id).toBeUndefined()
  })

  it("keeps names unique among the labels a workspace has, and the built-in three fixed", async () => {
    const name = unique("dup")
    expect((await send("POST", "/v1/labels", { name }, workspaceKey)).status).toBe(201)
    expect(await errorOf(await send("POST", "/v1/labels", { name }, workspaceKey))).toMatchObject({
      status: 409,
      param: "name"
    })
    const onOrganisation = { name, organisation_id: server().organisationId }
    expect((await errorOf(await send("POST", "/v1/labels", onOrganisation))).status).toBe(409)
    expect((await send("POST", "/v1/labels", { name, workspace_id: otherWorkspaceId })).status).toBe(201)
    expect((await errorOf(await send("POST", "/v1/labels", { name: "staging" }, workspaceKey))).status).toBe(409)
    expect(await errorOf(await send("POST", "/v1/labels", { name: "latest" }, workspaceKey))).toMatchObject({
      status: 400,
      param: "name"
    })
    expect(await errorOf(await send("PUT", "/v1/labels/production", { name: "prod" }))).toMatchObject({
      status: 400,
      param: "name"
    })
    expect((await errorOf(await send("DELETE", "/v1/labels/staging", undefined))).status).toBe(400)
  })

  it("leaves organisation labels to admin keys", async () => {
    const refused = await send(
      "POST",
      "/v1/labels",
      { name: unique("org"), organisation_id: server().organisationId },
      workspaceKey
    )
    expect(await errorOf(refused)).toMatchObject({ status: 403, code: "forbidden" })
    const shared = await jsonOf(
      await send("POST", "/v1/labels", { name: unique("org"), organisation_id: server().organisationId })
    )
    expect(
      (await errorOf(await send("PUT", `/v1/labels/${shared.id}`, { color_code: "#000000" }, workspaceKey))).status
    )
      .toBe(403)
    const elsewhere = await send("POST", "/v1/labels", { name: unique("x"), organisation_id: "another-organisation" })
    expect((await errorOf(elsewhere)).status).toBe(404)
  })

  it("carries a rename to the prompts pointing with it, and a deletion removes their pointers", async () => {
    const prompt = await createPrompt({ string: "v1 {{x}}", model: "m" })
    await send("PUT", `/v1/prompts/${prompt.id}`, { string: "v2 {{x}}" })
    const name = unique("beta")
    const label = await jsonOf(await send("POST", "/v1/labels", { name }, workspaceKey))
    const moved = await send("PUT", `/v1/prompts/${prompt.id}/versions/2`, { label_id: label.id }, workspaceKey)
    expect(await jsonOf(moved)).toMatchObject({ object: "prompt", version: 2, labels: [name] })
    expect(await text(`${prompt.slug}@${name}`)).toBe("v2 !")

    const renamed = unique("gamma")
    expect((await jsonOf(await send("PUT", `/v1/labels/${label.id}`, { name: renamed }, workspaceKey))).name).toBe(
      renamed
    )
    expect(await text(`${prompt.slug}@${renamed}`)).toBe("v2 !")
    expect((await errorOf(await render(`${prompt.slug}@${name}`, { variables: {} }))).status).toBe(404)

    expect((await jsonOf(await send("DELETE", `/v1/labels/${label.id}`, undefined, workspaceKey))).deleted).toBe(true)
    expect((await errorOf(await render(`${prompt.slug}@${renamed}`, { variables: {} }))).status).toBe(404)
  })

  it("creates the label a prompt's pointer names first, in the prompt's workspace", async () => {
    const prompt = await createPrompt({ string: "v1 {{x}}", model: "m" })
    const name = unique("canary")
    expect((await send("PUT", `/v1/prompts/${prompt.id}/labels/${name}`, { version: 1 })).status).toBe(200)
    const listed = await jsonOf(await read(`/v1/labels?workspace_id=${server().workspaceId}&page_size=1000`))
    expect(listed.data.find((label: { name: string }) => label.name === name)).toMatchObject({
      workspace_id: server().workspaceId
    })
  })
})

describe("prompt versions", () => {
  it("lists and reads versions, by id or number, with the labels pointing at each", async () => {
    const prompt = await createPrompt({ string: "v1 {{x}}", model: "m" })
    const v2 = await jsonOf(await send("PUT", `/v1/prompts/${prompt.slug}`, { string: "v2 {{x}}" }))
    const listed = await jsonOf(await read(`/v1/prompts/${prompt.slug}/versions`, workspaceKey))
    expect(listed).toMatchObject({ object: "list", total: 2, has_more: false })
    expect(listed.data.map((v: { version: number; labels: Array<string> }) => [v.version, v.labels])).toEqual([
      [1, ["development", "production", "staging"]],
      [2, []]
    ])
    const byId = await jsonOf(await read(`/v1/prompts/${prompt.id}/versions/${v2.version_id}`, workspaceKey))
    expect(byId).toMatchObject({ id: v2.version_id, version: 2, string: "v2 {{x}}", object: "prompt" })
    expect((await jsonOf(await read(`/v1/prompts/${prompt.id}/versions/2`, workspaceKey))).id).toBe(v2.version_id)
    expect((await errorOf(await read(`/v1/prompts/${prompt.id}/versions/9`, workspaceKey))).status).toBe(404)
  })

  it("points a label by its id, from the prompt's workspace or the organisation only", async () => {
    const prompt = await createPrompt({ string: "v1 {{x}}", model: "m" })
    await send("PUT", `/v1/prompts/${prompt.id}`, { string: "v2 {{x}}" })
    const path = `/v1/prompts/${prompt.id}/versions/2`
    expect((await jsonOf(await send("PUT", path, { label_id: "staging" }))).labels).toEqual(["staging"])
    expect(await text(`${prompt.slug}@staging`)).toBe("v2 !")
    const theirs = await jsonOf(await send("POST", "/v1/labels", { name: unique("t"), workspace_id: otherWorkspaceId }))
    expect(await errorOf(await send("PUT", path, { label_id: theirs.id }))).toMatchObject({
      status: 400,
      param: "label_id"
    })
    expect((await errorOf(await send("PUT", path, { label_id: theirs.id }, workspaceKey))).status).toBe(404)
    expect((await errorOf(await send("PUT", path, { label_id: "no-such-label" }))).status).toBe(404)
  })
})

describe("partial routes", () => {
  it("lists versions, publishes an older one, changes metadata without a version, and deletes", async () => {
    const slug = unique("voice")
    const partial = await jsonOf(
      await send("POST", "/v1/prompts/partials", { name: slug, string: "calm" }, workspaceKey)
    )
    const prompt = await createPrompt({ string: chat([{ role: "user", content: `{{>${slug}}}` }]), model: "m" })
    const content = async () => {
      const response = await render(prompt.id, { variables: {} })
      return response.status === 200 ? (await jsonOf(response)).data.messages[0].content : await errorOf(response)
    }
    await send("PUT", `/v1/prompts/partials/${slug}`, { string: "loud" }, workspaceKey)
    expect(await content()).toBe("loud")
    const versions = await jsonOf(await read(`/v1/prompts/partials/${slug}/versions`, workspaceKey))
    expect(versions.data.map((v: { version: number; string: string }) => [v.version, v.string])).toEqual([
      [1, "calm"],
      [2, "loud"]
    ])
    const published = await send("PUT", `/v1/prompts/partials/${slug}/makeDefault`, { version: 1 }, workspaceKey)
    expect(await jsonOf(published)).toMatchObject({ id: partial.id, published_version: 1, version: 1 })
    expect(await content()).toBe("calm")

    const described = await send("PUT", `/v1/prompts/partials/${slug}`, {
      name: "Voice",
      description: "How we sound"
    }, workspaceKey)
    expect(await jsonOf(described)).toMatchObject({ name: "Voice", description: "How we sound", version: 1 })
    expect((await jsonOf(await read(`/v1/prompts/partials/${slug}/versions`, workspaceKey))).total).toBe(2)
    expect(await errorOf(await send("PUT", `/v1/prompts/partials/${slug}`, {}, workspaceKey))).toMatchObject({
      status: 400
    })

    await send("PUT", `/v1/prompts/partials/${slug}`, { status: "archived" }, workspaceKey)
    expect((await content()).message).toContain(`Missing prompt partials: ${slug}`)
    await send("PUT", `/v1/prompts/partials/${slug}`, { status: "active" }, workspaceKey)
    expect(await content()).toBe("calm")

    const deleted = await send("DELETE", `/v1/prompts/partials/${slug}`, undefined, workspaceKey)
    expect(await jsonOf(deleted)).toMatchObject({ id: partial.id, deleted: true })
    expect((await errorOf(await read(`/v1/prompts/partials/${partial.id}`, workspaceKey))).status).toBe(404)
    expect((await content()).message).toContain(`Missing prompt partials: ${slug}`)
  })
})
