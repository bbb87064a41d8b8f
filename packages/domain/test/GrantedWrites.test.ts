/**
 * A store's writes, once wrapped with `grantedWrites`, take the policy's grant of the actions that permit them
 * and no other: the `@ts-expect-error` lines are checked by `npm run typecheck`, which fails if any of them
 * stops being an error. At run time, a wrapped write is the store's own, run only inside an audited use case
 * (`ActiveUseCase`): outside one it dies, so no path can change anything without its audit record.
 */
import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { grantedWrites } from "../src/access/GrantedWrites.ts"
import { ensureAllowed, Target } from "../src/access/Policy.ts"
import { ActiveUseCase, WriteOutsideUseCase } from "../src/audit/ActiveUseCase.ts"
import { principalFrom } from "../src/testing.ts"

const principal = principalFrom(
  { keyType: "workspace-service", userRole: null, membership: null },
  { keyId: "k", organisationId: "org", workspaceId: "ws", userId: "u" },
  ["prompts.create", "prompts.read", "prompts.publish"]
)

const grant = <A extends "prompts.create" | "prompts.read" | "prompts.publish">(action: A) =>
  Effect.runSync(ensureAllowed(principal, action, Target.workspace("org", "ws"), { type: "prompt", id: "p" }))

/** A store with one read and two writes, recording what reaches it. */
const recordingStore = () => {
  const calls: Array<ReadonlyArray<unknown>> = []
  const store = {
    get: (id: string) => Effect.succeed(`prompt ${id}`),
    insert: (id: string, name: string) => Effect.sync(() => void calls.push(["insert", id, name])),
    setLabel: (id: string, label: string) => Effect.sync(() => void calls.push(["setLabel", id, label]))
  }
  return { calls, store }
}

/** Runs `effect` as the audited use case `prompts.create` would. */
const inUseCase = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runSync(Effect.provideService(effect, ActiveUseCase, "prompts.create"))

describe("grantedWrites", () => {
  it("passes a write with its grant to the store, and leaves reads as they were", () => {
    const { calls, store } = recordingStore()
    const prompts = grantedWrites(store, { insert: "prompts.create", setLabel: ["prompts.create", "prompts.publish"] })
    inUseCase(prompts.insert(grant("prompts.create"), "p", "Greeting"))
    inUseCase(prompts.setLabel(grant("prompts.publish"), "p", "production"))
    inUseCase(prompts.setLabel(grant("prompts.create"), "p", "staging"))
    expect(calls).toEqual([["insert", "p", "Greeting"], ["setLabel", "p", "production"], ["setLabel", "p", "staging"]])
    expect(Effect.runSync(prompts.get("p"))).toBe("prompt p")
  })

  it("refuses, at compile time, a write without a grant or with the grant of another action", () => {
    const { calls, store } = recordingStore()
    const prompts = grantedWrites(store, { insert: "prompts.create", setLabel: ["prompts.create", "prompts.publish"] })
    const refused = [
      // @ts-expect-error: a write takes a grant
      () => prompts.insert("p", "Greeting"),
      // @ts-expect-error: a read's grant does not permit a write
      () => prompts.insert(grant("prompts.read"), "p", "Greeting"),
      // @ts-expect-error: nor does the grant of another write
      () => prompts.insert(grant("prompts.publish"), "p", "Greeting"),
      // @ts-expect-error: a write permitted by several actions still refuses a read's grant
      () => prompts.setLabel(grant("prompts.read"), "p", "production"),
      // @ts-expect-error: the store's unwrapped write is gone from the wrapped store's type
      () => prompts.setLabel("p", "production")
    ]
    expect(refused).toHaveLength(5)
    expect(calls).toEqual([])
  })

  it("refuses a write outside an audited use case: it dies, and the store sees nothing", () => {
    const { calls, store } = recordingStore()
    const prompts = grantedWrites(store, { insert: "prompts.create" })
    const exit = Effect.runSyncExit(prompts.insert(grant("prompts.create"), "p", "Unrecorded"))
    expect(
      Exit.isFailure(exit) &&
        exit.cause.reasons.some((r) => r._tag === "Die" && r.defect instanceof WriteOutsideUseCase)
    )
      .toBe(true)
    expect(calls).toEqual([])
    expect(Effect.runSync(prompts.get("p"))).toBe("prompt p")
  })
})
