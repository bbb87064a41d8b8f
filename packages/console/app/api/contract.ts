/**
 * The API's types as the console sees them, derived from the API definition: `GatewayApi`, the same one
 * `@gateway-control/client` is made from. Each is the JSON a call sends or receives (the encoded side of the
 * endpoint's schema), named by the endpoint's group and name, e.g. `Answer<"workspaces", "list">`, so a changed
 * endpoint fails the console's type check (`npm run typecheck`).
 *
 * Types only: every import here is `import type`, which type stripping erases, so nothing of Effect or of the
 * API definition reaches the browser. Import this module with `import type` too.
 */
import type { GatewayApi } from "@gateway-control/adapters-http/api"
import type { Schema } from "effect"
import type { HttpApi, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

type Groups = typeof GatewayApi extends HttpApi.HttpApi<string, infer G> ? G : never

/** The API's groups: `workspaces`, `apiKeys`, `prompts`… */
export type Group = HttpApiGroup.Identifier<Groups>

type EndpointsOf<G extends Group> = HttpApiGroup.EndpointsWithIdentifier<Groups, G>

/** The endpoints of a group, by name: `list`, `create`… */
export type EndpointName<G extends Group> = HttpApiEndpoint.Identifier<EndpointsOf<G>>

type Endpoint<G extends Group, E extends EndpointName<G>> = HttpApiEndpoint.WithIdentifier<EndpointsOf<G>, E>

/**
 * The JSON form of a body's schema. HttpApi wraps each in `toCodecJson`, whose own `Encoded` is any JSON; the
 * wrapped schema's `Encoded` is the shape (the domain's schemas encode to JSON values: dates as strings).
 */
type JsonOf<S> = S extends Schema.toCodecJson<infer Inner> ? Schema.Codec.Encoded<Inner> : Schema.Codec.Encoded<S>

/** What an endpoint answers on success, as the console receives it. */
export type Answer<G extends Group, E extends EndpointName<G>> = JsonOf<HttpApiEndpoint.Success<Endpoint<G, E>>>

/** The body an endpoint takes (`never` when it takes none). */
export type Body<G extends Group, E extends EndpointName<G>> = JsonOf<HttpApiEndpoint.Payload<Endpoint<G, E>>>

/** An endpoint's method: `GET`, `POST`, `PUT`, `DELETE`. */
export type Method<G extends Group, E extends EndpointName<G>> = Endpoint<G, E>["method"]

/** A path with each `:param` any string: `/prompts/:promptId/versions` is `/prompts/${string}/versions`. */
type Template<P extends string> = P extends `${infer Head}:${infer _Param}/${infer Rest}` ?
  `${Head}${string}/${Template<Rest>}`
  : P extends `${infer Head}:${infer _Param}` ? `${Head}${string}`
  : P

/** The path a call names, under the `/v1` the transport adds (`api/client.ts`). */
export type PathOf<G extends Group, E extends EndpointName<G>> = Endpoint<G, E>["path"] extends `/v1${infer Rest}`
  ? Template<Rest>
  : never
