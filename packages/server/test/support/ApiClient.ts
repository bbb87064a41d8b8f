/**
 * The typed client (`@gateway-control/client`) pointed at a test server, for tests that call JSON endpoints:
 * requests are built from the API's schemas and answers decoded with them, so a success must have its
 * declared status and shape, and a failure arrives as its error class (`NotFoundError`, ...), which stands for
 * the status it is declared with.
 */
import {
  BadGateway,
  BadRequest,
  ConflictError,
  ForbiddenError,
  GatewayControlClient,
  type GatewayControlClientShape,
  GatewayTimeout,
  NotFoundError,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized
} from "@gateway-control/client"
import { Cause, Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"

/** One call of the typed client: a method of one of its groups applied to its request. */
export type ApiCall<A, E> = (client: GatewayControlClientShape) => Effect.Effect<A, E>

/** Creates a workspace service key of `workspaceId` with `scopes`: the key most tests act with. */
export const createWorkspaceServiceKey =
  (name: string, workspaceId: string, scopes: Array<string>) => (client: GatewayControlClientShape) =>
    client.apiKeys.create({
      params: { type: "workspace", subType: "service" },
      payload: { name, workspace_id: workspaceId, scopes }
    })

/** A refusal in the error envelope, flat: its class's tag (which stands for its status) and the envelope's fields. */
export interface Refusal {
  readonly _tag: string
  readonly code: string
  readonly message: string
  readonly param: string | null
}

const envelopeErrors = [
  BadRequest,
  Unauthorized,
  ForbiddenError,
  NotFoundError,
  ConflictError,
  ServiceUnavailable,
  TooManyRequests,
  BadGateway,
  GatewayTimeout
]
type EnvelopeError = InstanceType<(typeof envelopeErrors)[number]>
const isEnvelopeError = (error: unknown): error is EnvelopeError =>
  envelopeErrors.some((errorClass) => error instanceof errorClass)

export interface TypedCalls {
  /** The client calling with `key`. */
  readonly clientFor: (key: string) => GatewayControlClientShape
  /** Runs `call` with the admin key, or with `key`: its decoded success, or a rejection with its error. */
  readonly api: <A, E>(call: ApiCall<A, E>, key?: string) => Promise<A>
  /**
   * Runs `call`, which must be refused, with the admin key or `key`: the refusal. Rejects when the call succeeded
   * or failed otherwise (an undeclared status, an answer that does not decode).
   */
  readonly refusal: <A, E>(call: ApiCall<A, E>, key?: string) => Promise<Refusal>
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
  const refusal: TypedCalls["refusal"] = async (call, key) => {
    const exit = await Effect.runPromiseExit(call(clientFor(key ?? adminKey)))
    if (Exit.isSuccess(exit)) throw new Error(`expected a refusal; the call answered ${JSON.stringify(exit.value)}`)
    const error = Cause.squash(exit.cause)
    if (!isEnvelopeError(error)) throw error
    return { _tag: error._tag, ...error.error }
  }
  return { clientFor, api, refusal }
}
