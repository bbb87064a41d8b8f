/**
 * An Effect program that uses the engine in-process: bootstrap an organisation, authenticate its key, save a
 * prompt and render it. No HTTP is involved; the same policy, validation and store apply as over the API.
 */
import { ApiKeys, Bootstrap, Prompts } from "@gateway-control/domain"
import { GatewayControl } from "@gateway-control/server"
import { Effect } from "effect"

// readme:start embed-effect
export const renderGreeting = Effect.gen(function*() {
  const owner = { organisationName: "Acme", ownerEmail: "owner@acme.test" }
  const { api_key, workspace_id } = yield* Bootstrap.use((bootstrap) => bootstrap.run(owner))
  const caller = yield* ApiKeys.use((keys) => keys.authenticate(api_key))
  const prompts = yield* Prompts
  yield* prompts.create(caller, { name: "Greeting", workspace_id, string: "Hello {{name}}!", model: "gpt-4o-mini" })
  return yield* prompts.render(caller, "greeting", { variables: { name: "Ada" } })
})

export const main = renderGreeting.pipe(Effect.provide(GatewayControl.layer({ store: "memory" })))
// readme:end
