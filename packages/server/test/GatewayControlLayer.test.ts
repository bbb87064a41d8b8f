/**
 * `GatewayControl.layer` in an Effect program: the domain services in-process, no HTTP anywhere.
 */
import { it } from "@effect/vitest"
import { ApiKeys, Bootstrap, OrganisationStore, Prompts, StoreTransaction } from "@gateway-control/domain"
import { Effect, Option, Redacted } from "effect"
import { describe, expect } from "vitest"
import { GatewayControl } from "../src/index.ts"

describe("GatewayControl.layer", () => {
  it.layer(GatewayControl.layer({ store: "memory" }))((it) => {
    it.effect("bootstraps, authenticates the key and renders a prompt", () =>
      Effect.gen(function*() {
        const boot = yield* (yield* Bootstrap).run({ organisationName: "In-process", ownerEmail: "o@in.test" })
        const principal = yield* (yield* ApiKeys).authenticate(boot.api_key)
        const prompts = yield* Prompts
        const created = yield* prompts.create(principal, {
          workspace_id: boot.workspace_id,
          name: "Layered",
          string: "Hi {{who}}",
          model: "gpt-3.5-turbo-instruct"
        })
        const rendered = yield* prompts.render(principal, created.slug, { variables: { who: "Effect" } })
        expect(rendered.data).toEqual({ model: "gpt-3.5-turbo-instruct", prompt: "Hi Effect" })
        const refused = yield* Effect.flip((yield* ApiKeys).authenticate(Redacted.make("gwc_not-a-key")))
        expect(refused._tag).toBe("Unauthenticated")
      }))

    it.effect("provides the domain services only, not the store ports behind the policy", () =>
      Effect.gen(function*() {
        expect(Option.isNone(yield* Effect.serviceOption(OrganisationStore))).toBe(true)
        expect(Option.isNone(yield* Effect.serviceOption(StoreTransaction))).toBe(true)
      }))
  })
})
