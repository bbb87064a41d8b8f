/**
 * The store contract for labels: unique by name at their level (a workspace's, or the organisation's own),
 * found by name across levels, listed for a workspace with the organisation's, renamed and deleted.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { Label, LabelStore } from "../../src/index.ts"
import { at, type Harness, uid, workspace } from "./ContractHarness.ts"

export const labelContract = ({ exit, freshOrganisation, run }: Harness) => {
  const label = (organisationId: string, workspaceId: string | null, name: string) => {
    const now = at()
    return new Label({
      id: uid(),
      organisation_id: organisationId,
      workspace_id: workspaceId,
      name,
      description: `the ${name} label`,
      color_code: "#00ff88",
      created_at: now,
      last_updated_at: now
    })
  }
  const insert = (l: Label) => Effect.flatMap(Effect.service(LabelStore), (s) => s.insert(l))

  it("keeps names unique per level, finds them by name, and lists a workspace's with the organisation's", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    const shared = label(org.id, null, "shared")
    const own = label(org.id, w1.id, "beta")
    const theirs = label(org.id, w2.id, "beta")
    await run(Effect.gen(function*() {
      yield* Effect.forEach([w1, w2], (yield* WorkspaceStore).insert)
      for (const l of [shared, own, theirs]) yield* insert(l)
    }))
    for (const duplicate of [label(org.id, null, "shared"), label(org.id, w1.id, "beta")]) {
      expect(JSON.stringify(await exit(insert(duplicate)))).toContain("Conflict")
    }
    const read = await run(Effect.gen(function*() {
      const store = yield* LabelStore
      return {
        byId: yield* store.get(own.id),
        named: yield* store.withName(org.id, "beta"),
        elsewhere: yield* store.withName("other-org", "beta"),
        inW1: yield* store.list(org.id, w1.id, { limit: 10, offset: 0 }),
        all: yield* store.list(org.id, null, { limit: 2, offset: 0 }),
        rest: yield* store.list(org.id, null, { limit: 2, offset: 2 })
      }
    }))
    expect(Option.getOrThrow(read.byId)).toEqual(own)
    expect(read.named.map((l) => l.id).sort()).toEqual([own.id, theirs.id].sort())
    expect(read.elsewhere).toEqual([])
    expect(read.inW1).toEqual({ items: [shared, own], total: 2 })
    expect(read.all).toEqual({ items: [shared, own], total: 3 })
    expect(read.rest).toEqual({ items: [theirs], total: 3 })
  })

  it("searches names in any case, LIKE wildcards taken as characters, within the level and paged", async () => {
    const org = await freshOrganisation()
    const [w1, w2] = [workspace(org.id), workspace(org.id)]
    const [shared, own, theirs, wild] = [
      label(org.id, null, "Beta-shared"),
      label(org.id, w1.id, "alphabet"),
      label(org.id, w2.id, "beta"),
      label(org.id, w1.id, "50_off")
    ]
    await run(Effect.gen(function*() {
      yield* Effect.forEach([w1, w2], (yield* WorkspaceStore).insert)
      for (const l of [shared, own, theirs, wild]) yield* insert(l)
    }))
    const read = await run(Effect.gen(function*() {
      const store = yield* LabelStore
      const all = { limit: 10, offset: 0 }
      return {
        inW1: yield* store.list(org.id, w1.id, all, "BET"),
        everywhere: yield* store.list(org.id, null, all, "bet"),
        second: yield* store.list(org.id, null, { limit: 1, offset: 1 }, "bet"),
        // A name has no '%' (Label.ts): a search for one finds none, and '_' is a character, not any.
        percent: yield* store.list(org.id, null, all, "%"),
        underscore: yield* store.list(org.id, null, all, "0_O"),
        none: yield* store.list(org.id, null, all, "_x")
      }
    }))
    expect(read.inW1).toEqual({ items: [shared, own], total: 2 })
    expect(read.everywhere).toEqual({ items: [shared, own, theirs], total: 3 })
    expect(read.second).toEqual({ items: [own], total: 3 })
    expect(read.percent).toEqual({ items: [], total: 0 })
    expect(read.underscore).toEqual({ items: [wild], total: 1 })
    expect(read.none).toEqual({ items: [], total: 0 })
  })

  it("renames in place, refuses a rename onto a taken name, and deletes", async () => {
    const org = await freshOrganisation()
    const w = workspace(org.id)
    const [alpha, beta] = [label(org.id, w.id, "alpha"), label(org.id, w.id, "beta")]
    await run(Effect.gen(function*() {
      yield* (yield* WorkspaceStore).insert(w)
      yield* insert(alpha)
      yield* insert(beta)
    }))
    const renamed = new Label({ ...alpha, name: "gamma", color_code: null, last_updated_at: at() })
    const result = await run(Effect.gen(function*() {
      const store = yield* LabelStore
      return {
        updated: yield* store.update(renamed),
        missing: yield* store.update(new Label({ ...renamed, id: uid() })),
        byOldName: yield* store.withName(org.id, "alpha"),
        byNewName: yield* store.withName(org.id, "gamma")
      }
    }))
    expect([result.updated, result.missing]).toEqual([true, false])
    expect(result.byOldName).toEqual([])
    expect(result.byNewName).toEqual([renamed])
    const clash = await exit(
      Effect.flatMap(Effect.service(LabelStore), (s) => s.update(new Label({ ...renamed, name: "beta" })))
    )
    expect(JSON.stringify(clash)).toContain("Conflict")
    // The old name is free again.
    await run(insert(label(org.id, w.id, "alpha")))
    const deleted = await run(Effect.gen(function*() {
      const store = yield* LabelStore
      return [yield* store.delete(beta.id), yield* store.delete(beta.id), yield* store.get(beta.id)]
    }))
    expect(deleted).toEqual([true, false, Option.none()])
  })
}
