/**
 * The store contract for units of work: all or nothing, after-commit effects, named locks and races.
 */
import { Effect, Exit, Option } from "effect"
import { expect, it } from "vitest"
import { WorkspaceStore } from "../../src/access/AccessStores.ts"
import { Workspace } from "../../src/index.ts"
import { StoreTransaction } from "../../src/shared/StoreTransaction.ts"
import { type Harness, uid, workspace } from "./ContractHarness.ts"

export const transactionContract = ({ exit, freshOrganisation, run }: Harness) => {
  it("answers the readiness ping", async () => {
    await run(Effect.flatMap(Effect.service(StoreTransaction), (t) => t.ping))
  })

  it("commits a unit of work whole, or rolls all of it back", async () => {
    const org = await freshOrganisation()
    const kept = workspace(org.id)
    const lost = [workspace(org.id), workspace(org.id)]
    await run(Effect.gen(function*() {
      const transaction = yield* StoreTransaction
      const workspaces = yield* WorkspaceStore
      yield* transaction.withTransaction(workspaces.insert(kept))
      const failed = yield* Effect.exit(transaction.withTransaction(Effect.gen(function*() {
        yield* workspaces.insert(lost[0])
        // Nested units of work join the enclosing one.
        yield* transaction.withTransaction(workspaces.insert(lost[1]))
        return yield* Effect.fail("boom")
      })))
      expect(Exit.isFailure(failed)).toBe(true)
    }))
    const listed = await run(
      Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.list(org.id, { limit: 10, offset: 0 }))
    )
    expect(listed.items.map((w) => w.id)).toEqual([kept.id])
  })

  it("runs after-commit effects once the unit of work commits, never after a rollback, at once outside one", async () => {
    const org = await freshOrganisation()
    const committed = workspace(org.id)
    const ran: Array<string> = []
    await run(Effect.gen(function*() {
      const transaction = yield* StoreTransaction
      const workspaces = yield* WorkspaceStore
      yield* transaction.afterCommit(Effect.sync(() => ran.push("outside")))
      expect(ran).toEqual(["outside"])
      yield* transaction.withTransaction(Effect.gen(function*() {
        yield* workspaces.insert(committed)
        // Registered in a nested unit of work, it waits for the enclosing one.
        yield* transaction.withTransaction(transaction.afterCommit(Effect.gen(function*() {
          // By now the change is committed: a read outside the unit of work sees it.
          const seen = yield* Effect.orDie(workspaces.get(committed.id))
          ran.push(Option.isSome(seen) ? "after commit, seen" : "after commit, unseen")
        })))
        expect(ran).toEqual(["outside"])
      }))
      yield* Effect.exit(transaction.withTransaction(Effect.andThen(
        transaction.afterCommit(Effect.sync(() => ran.push("rolled back"))),
        Effect.fail("boom")
      )))
    }))
    expect(ran).toEqual(["outside", "after commit, seen"])
  })

  it("rolls back a unit of work that ends in a conflict", async () => {
    const org = await freshOrganisation()
    const taken = workspace(org.id, "taken")
    const first = workspace(org.id)
    await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.insert(taken)))
    const result = await exit(Effect.gen(function*() {
      const workspaces = yield* WorkspaceStore
      yield* (yield* StoreTransaction).withTransaction(
        Effect.andThen(workspaces.insert(first), workspaces.insert(workspace(org.id, "taken")))
      )
    }))
    expect(JSON.stringify(result)).toContain("Conflict")
    const got = await run(Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.get(first.id)))
    expect(Option.isNone(got)).toBe(true)
  })

  it("serialises check-then-act units of work that take the same named lock", async () => {
    const org = await freshOrganisation()
    const slug = `only-${uid()}`
    // Each unit checks that no workspace has the slug, then creates one under another slug: no constraint
    // stops the second, only the lock does.
    const attempt = Effect.gen(function*() {
      const transaction = yield* StoreTransaction
      const workspaces = yield* WorkspaceStore
      return yield* transaction.withTransaction(Effect.gen(function*() {
        yield* transaction.lock(`contract-${slug}`)
        const listed = yield* workspaces.list(org.id, { limit: 100, offset: 0 })
        if (listed.items.some((w) => w.name.startsWith(slug))) return false
        yield* Effect.sleep("20 millis")
        const w = workspace(org.id)
        yield* workspaces.insert(new Workspace({ ...w, name: `${slug} ${w.id}` }))
        return true
      }))
    })
    const results = await run(Effect.all(Array.from({ length: 6 }, () => attempt), { concurrency: "unbounded" }))
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  it("lets exactly one of many concurrent creates of the same slug succeed", async () => {
    const org = await freshOrganisation()
    const attempts = Array.from({ length: 12 }, () => workspace(org.id, "race"))
    const results = await run(
      Effect.flatMap(
        Effect.service(WorkspaceStore),
        (s) => Effect.forEach(attempts, (w) => Effect.exit(s.insert(w)), { concurrency: "unbounded" })
      )
    )
    expect(results.filter(Exit.isSuccess)).toHaveLength(1)
    const listed = await run(
      Effect.flatMap(Effect.service(WorkspaceStore), (s) => s.list(org.id, { limit: 20, offset: 0 }))
    )
    expect(listed.items.filter((w) => w.slug === "race")).toHaveLength(1)
  })
}
