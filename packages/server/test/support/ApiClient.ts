/**
 * The typed client (`@gateway-control/client`) pointed at a test server, for tests that call JSON endpoints:
 * requests are built from the API's schemas and answers decoded with them, so a success must have its
 * declared status and shape, and a failure arrives as its error class (`NotFoundError`, ...), which stands for
 * the status it is declared with.
 */
import { GatewayControlClient, type GatewayControlClientShape } from "@gateway-control/client"
import { Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"

/** One call of the typed client: a method of one of its groups applied to its request. */
export type ApiCall<A, E> = (client: GatewayControlClientShape) => Effect.Effect<A, E>

export interface TypedCalls {
  /** The client calling with `key`. */
  readonly clientFor: (key: string) => GatewayControlClientShape
  /** Runs `call` with the admin key, or with `key`: its decoded success, or a rejection with its error. */
  readonly api: <A, E>(call: ApiCall<A, E>, key?: string) => Promise<A>
  /** Runs `call`, which must fail, with the admin key or `key`: its error; a rejection if it succeeded. */
  readonly apiError: <A, E>(call: ApiCall<A, E>, key?: string) => Promise<E>
}

export const typedCalls = (baseUrl: string, adminKey: string): TypedCalls => {
  const clients = new Map<string, GatewayControlClientShape>()
  const clientFor = (key: string) => {
    let client = clients.get(key)
    if (client === undefined) {
      client = Effect.runSync(
        Effect.provide(GatewayControlClient.make({ baseUrl, apiKey: key }), FetchHttpClient.layer)
      )
      clients.set(key, client)
    }
    return client
  }
  const api: TypedCalls["api"] = (call, key) => Effect.runPromise(call(clientFor(key ?? adminKey)))
  const apiError: TypedCalls["apiError"] = async (call, key) => {
    const exit = await Effect.runPromiseExit(call(clientFor(key ?? adminKey)))
    if (Exit.isSuccess(exit)) throw new Error(`expected the call to fail; it answered ${JSON.stringify(exit.value)}`)
    return Effect.runPromise(Effect.flip(Effect.failCause(exit.cause)))
  }
  return { clientFor, api, apiError }
}
