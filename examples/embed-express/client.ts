/**
 * Another service calling the gateway over HTTP with the typed client: payloads, answers and errors are typed
 * from the API's own definition, and a refusal is caught by its tag.
 */
import { GatewayControlClient } from "@gateway-control/client"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"

// readme:start client
export const renderGreeting = (baseUrl: string, apiKey: string, name: string) =>
  Effect.gen(function*() {
    const api = yield* GatewayControlClient
    const rendered = yield* api.prompts.render({ params: { promptId: "greeting" }, payload: { variables: { name } } })
    return rendered.data
  }).pipe(
    Effect.catchTag("NotFoundError", () => Effect.succeed(undefined)), // no such prompt for this key
    Effect.provide(GatewayControlClient.layer({ baseUrl, apiKey }).pipe(Layer.provide(FetchHttpClient.layer))),
    Effect.runPromise
  )
// readme:end
