/**
 * The store contract for prompts, their versions and labels, and partials.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import {
  Partial,
  PartialStore,
  PartialVersion,
  Prompt,
  PromptLabel,
  PromptStore,
  PromptVersion
} from "../../src/index.ts"
import { at, type Harness, prompt as promptIn, promptVersion, uid, workspace } from "./ContractHarness.ts"

export const promptContract = ({ exit, freshOrganisation, run }: Harness) => {
  it("stores prompts with numbered versions and labels, and deletes them whole", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w)))
    const prompt = promptIn(org.id, w.id)
    const version = (n: number) =>
      promptVersion(prompt.id, n, {
        parameters: { temperature: 0.5, nested: { a: [1, "b"] } },
        model: n === 1 ? null : "gpt-4o",
        virtual_key: n === 1 ? null : "openai-main"
      })
    const [v1, v2] = [version(1), version(2)]
    await run(Effect.gen(function*() {
      const store = yield* PromptStore
      yield* store.insert(prompt, v1)
      yield* store.addVersion(v2)
      yield* store.setLabel(
        new PromptLabel({ prompt_id: prompt.id, label: "production", version: 1, last_updated_at: at() })
      )
      yield* store.setLabel(
        new PromptLabel({ prompt_id: prompt.id, label: "production", version: 2, last_updated_at: at() })
      )
      yield* store.setPublished(prompt.id, 2, at())
    }))
    const duplicate = await exit(Effect.flatMap(Effect.service(PromptStore), (s) => s.addVersion(version(2))))
    expect(JSON.stringify(duplicate)).toContain("Conflict")
    const sameSlug = await exit(
      Effect.flatMap(
        Effect.service(PromptStore),
        (s) => s.insert(new Prompt({ ...prompt, id: uid() }), new PromptVersion({ ...v1, id: uid() }))
      )
    )
    expect(JSON.stringify(sameSlug)).toContain("Conflict")
    const read = await run(Effect.gen(function*() {
      const store = yield* PromptStore
      return {
        prompt: yield* store.get(prompt.id),
        bySlug: yield* store.findBySlug(org.id, "p"),
        latest: yield* store.latestVersion(prompt.id),
        v1: yield* store.getVersion(prompt.id, 1),
        versions: yield* store.versions(prompt.id),
        labels: yield* store.labels(prompt.id),
        listed: yield* store.list(org.id, w.id, { limit: 10, offset: 0 })
      }
    }))
    expect(Option.getOrThrow(read.prompt).published_version).toBe(2)
    expect(read.bySlug.map((p) => p.id)).toEqual([prompt.id])
    expect(Option.getOrThrow(read.latest)).toEqual(v2)
    expect(Option.getOrThrow(read.v1)).toEqual(v1)
    expect(read.versions.map((v) => v.version)).toEqual([1, 2])
    expect(read.labels.map((l) => [l.label, l.version])).toEqual([["production", 2]])
    expect(read.listed.total).toBe(1)
    // A prompt's own fields change in place: renamed and moved to another collection, versions untouched.
    const moved = new Prompt({ ...prompt, name: "Moved", collection_id: `other-${w.id}`, published_version: 2 })
    const changed = await run(Effect.gen(function*() {
      const store = yield* PromptStore
      const updated = yield* store.update(moved)
      const missing = yield* store.update(new Prompt({ ...moved, id: uid() }))
      return {
        updated,
        missing,
        after: yield* store.get(prompt.id),
        inOther: yield* store.list(org.id, w.id, { limit: 10, offset: 0 }, moved.collection_id)
      }
    }))
    expect([changed.updated, changed.missing]).toEqual([true, false])
    expect(Option.getOrThrow(changed.after)).toMatchObject({ name: "Moved", collection_id: moved.collection_id })
    expect(changed.inOther.items.map((p) => p.id)).toEqual([prompt.id])
    expect(await run(Effect.flatMap(Effect.service(PromptStore), (s) => s.delete(prompt.id)))).toBe(true)
    const gone = await run(Effect.gen(function*() {
      const store = yield* PromptStore
      return {
        prompt: yield* store.get(prompt.id),
        versions: yield* store.versions(prompt.id),
        labels: yield* store.labels(prompt.id)
      }
    }))
    expect(Option.isNone(gone.prompt)).toBe(true)
    expect(gone.versions).toEqual([])
    expect(gone.labels).toEqual([])
  })

  it("stores partials by slug in their workspace, with versions", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(w)))
    const now = at()
    const partial = new Partial({
      id: uid(),
      organisation_id: org.id,
      workspace_id: w.id,
      collection_id: `c-${w.id}`,
      name: "Tone",
      slug: "tone",
      published_version: 1,
      description: "How to sound",
      status: "active",
      created_at: now,
      last_updated_at: now
    })
    const v = (n: number) =>
      new PartialVersion({
        id: uid(),
        partial_id: partial.id,
        version: n,
        string: `tone ${n}`,
        version_description: null,
        created_at: at()
      })
    await run(Effect.gen(function*() {
      const store = yield* PartialStore
      yield* store.insert(partial, v(1))
      yield* store.addVersion(v(2))
      yield* store.setPublished(partial.id, 2, at())
    }))
    const read = await run(Effect.gen(function*() {
      const store = yield* PartialStore
      return {
        bySlug: yield* store.findBySlug(w.id, "tone"),
        v2: yield* store.getVersion(partial.id, 2),
        none: yield* store.getVersion(partial.id, 3),
        elsewhere: yield* store.findBySlug("other-workspace", "tone")
      }
    }))
    expect(Option.getOrThrow(read.bySlug).published_version).toBe(2)
    expect(Option.getOrThrow(read.bySlug).description).toBe("How to sound")
    expect(Option.getOrThrow(read.v2).string).toBe("tone 2")
    expect(Option.isNone(read.none)).toBe(true)
    expect(Option.isNone(read.elsewhere)).toBe(true)

    const archived = new Partial({
      ...partial,
      name: "Tone of voice",
      collection_id: `moved-${w.id}`,
      description: null,
      status: "archived",
      published_version: 1,
      last_updated_at: at()
    })
    const changed = await run(Effect.gen(function*() {
      const store = yield* PartialStore
      return {
        updated: yield* store.update(archived),
        missing: yield* store.update(new Partial({ ...archived, id: uid() })),
        read: yield* store.get(partial.id),
        versions: yield* store.versions(partial.id)
      }
    }))
    expect([changed.updated, changed.missing]).toEqual([true, false])
    expect(Option.getOrThrow(changed.read)).toEqual(archived)
    expect(changed.versions.map((version) => [version.version, version.string])).toEqual([[1, "tone 1"], [
      2,
      "tone 2"
    ]])
    const deleted = await run(Effect.gen(function*() {
      const store = yield* PartialStore
      return {
        first: yield* store.delete(partial.id),
        again: yield* store.delete(partial.id),
        read: yield* store.get(partial.id),
        versions: yield* store.versions(partial.id),
        bySlug: yield* store.findBySlug(w.id, "tone")
      }
    }))
    expect(deleted).toEqual({
      first: true,
      again: false,
      read: Option.none(),
      versions: [],
      bySlug: Option.none()
    })
  })

  it("renames and removes label pointers by name, within the organisation or one workspace", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    const [p1, p2] = [promptIn(org.id, w1.id), promptIn(org.id, w2.id)]
    const pointer = (p: Prompt, label: string) =>
      new PromptLabel({ prompt_id: p.id, label, version: 1, last_updated_at: at() })
    await run(Effect.gen(function*() {
      yield* Effect.forEach([w1, w2], (yield* WorkspaceStore).insert)
      const store = yield* PromptStore
      for (const p of [p1, p2]) {
        yield* store.insert(p, promptVersion(p.id, 1))
        yield* store.setLabel(pointer(p, "beta"))
        yield* store.setLabel(pointer(p, "production"))
      }
    }))
    const names = (p: Prompt) =>
      run(
        Effect.map(Effect.flatMap(Effect.service(PromptStore), (s) => s.labels(p.id)), (ls) => ls.map((l) => l.label))
      )
    await run(Effect.flatMap(Effect.service(PromptStore), (s) => s.renameLabel(org.id, w1.id, "beta", "gamma")))
    expect([await names(p1), await names(p2)]).toEqual([["gamma", "production"], ["beta", "production"]])
    await run(Effect.flatMap(Effect.service(PromptStore), (s) => s.renameLabel("other-org", null, "beta", "x")))
    expect(await names(p2)).toEqual(["beta", "production"])
    await run(Effect.flatMap(Effect.service(PromptStore), (s) => s.removeLabel(org.id, null, "beta")))
    expect([await names(p1), await names(p2)]).toEqual([["gamma", "production"], ["production"]])
  })
}
