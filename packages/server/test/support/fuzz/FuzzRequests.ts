/**
 * Endpoints as the OpenAPI document lists them, the valid example of each, and the arbitrary of mutated
 * requests made from an example.
 */
import fc from "fast-check"
import { type BodyBytes, bodyMutation, classicBodies, exampleBody } from "./BodyMutations.ts"
import { classicHeaderChanges, type HeaderChange, headerChange, type HeaderContext } from "./HeaderMutations.ts"
import type { Labelled } from "./HostileValues.ts"
import {
  classicPathIds,
  classicQueryValues,
  encode,
  hostilePathId,
  queryMutation,
  toQuery
} from "./RequestMutations.ts"

export type { HeaderContext } from "./HeaderMutations.ts"

export interface Endpoint {
  readonly operationId: string
  readonly method: string
  /** The OpenAPI path template, e.g. `/v1/prompts/{promptId}`. */
  readonly path: string
  readonly pathParams: ReadonlyArray<string>
  readonly queryParams: ReadonlyArray<string>
  readonly hasBody: boolean
}

interface OpenApiOperation {
  readonly operationId?: string
  readonly parameters?: ReadonlyArray<{ readonly in: string; readonly name: string }>
  readonly requestBody?: unknown
}

/** Every operation of an OpenAPI document. */
export const endpointsOf = (document: { readonly paths: object }): ReadonlyArray<Endpoint> =>
  Object.entries(document.paths).flatMap(([path, operations]: [string, Record<string, OpenApiOperation>]) =>
    Object.entries(operations).map(([method, operation]) => {
      const parameters = operation.parameters ?? []
      return {
        operationId: operation.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === "path").map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === "query").map((p) => p.name),
        hasBody: operation.requestBody !== undefined
      }
    })
  )

/** A request an endpoint answers with 2xx on a freshly bootstrapped server with the fuzz fixture. */
export interface Example {
  readonly params?: Readonly<Record<string, string>>
  readonly query?: Readonly<Record<string, string>>
  readonly body?: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** The API key to send; the admin key when absent. */
  readonly key?: string
}

export interface FuzzRequest {
  readonly method: string
  /** The path as sent, percent-encoded (or deliberately not). */
  readonly path: string
  readonly query: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: BodyBytes
  readonly mutations: ReadonlyArray<string>
}

const clip = (text: string, max = 160) => text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text

const bodyText = (body: BodyBytes) =>
  body === undefined
    ? "(none)"
    : typeof body === "string"
    ? JSON.stringify(clip(body))
    : `bytes ${clip(Buffer.from(body).toString("hex"))}`

/** A request as a failure report shows it: short enough to read, exact enough to replay by hand. */
export const describeRequest = (request: FuzzRequest) => {
  const headers = Object.entries(request.headers)
    .filter(([name]) => name !== "x-service-api-key")
    .map(([name, value]) => `${name}: ${JSON.stringify(clip(value, 80))}`)
  return [
    `${request.method} ${clip(request.path)}${request.query === "" ? "" : `?${clip(request.query)}`}`,
    `  mutations: ${request.mutations.length === 0 ? "none" : request.mutations.join(" | ")}`,
    `  headers: ${headers.join(", ") || "(none)"}${"x-service-api-key" in request.headers ? " (+ api key)" : ""}`,
    `  body: ${bodyText(request.body)}`
  ].join("\n")
}

const withDescription = (request: FuzzRequest): FuzzRequest =>
  Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) })

const pathWith = (endpoint: Endpoint, segments: Readonly<Record<string, string>>) =>
  endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => segments[name] ?? "")

const encodedParams = (example: Example) =>
  Object.fromEntries(Object.entries(example.params ?? {}).map(([k, v]) => [k, encode(v)]))

const baseHeaders = (example: Example, context: HeaderContext): Record<string, string> => ({
  "x-service-api-key": example.key ?? context.adminKey,
  ...(example.body === undefined ? {} : { "content-type": "application/json" }),
  ...example.headers
})

/** The example itself, unmutated. */
export const exampleRequest = (endpoint: Endpoint, example: Example, context: HeaderContext): FuzzRequest =>
  withDescription({
    method: endpoint.method,
    path: pathWith(endpoint, encodedParams(example)),
    query: toQuery(Object.entries(example.query ?? {}).map(([k, v]) => [k, encode(v)] as const)),
    headers: baseHeaders(example, context),
    body: exampleBody(example.body),
    mutations: []
  })

/** Present `present` times in `present + absent`; shrinks to absent, so a counterexample keeps only what matters. */
const sometimes = <A>(arbitrary: fc.Arbitrary<A>, present: number, absent: number) =>
  fc.oneof({ withCrossShrink: true }, { weight: absent, arbitrary: fc.constant(undefined) }, {
    weight: present,
    arbitrary
  })

interface Mutations {
  readonly body?: Labelled<BodyBytes> | undefined
  readonly query?: Labelled<string> | undefined
  readonly path?: readonly [name: string, id: Labelled<string>] | undefined
  readonly headers?: ReadonlyArray<HeaderChange> | undefined
}

/**
 * Requests made from the example. Most runs mutate one part (body, query, a path id or headers) with one to
 * three changes, since an early rejection of one part (a 401, a 415) would hide what another part does;
 * the rest mutate several parts at once. Endpoints without a body now and then get one anyway.
 */
export const fuzzRequest = (
  endpoint: Endpoint,
  example: Example,
  context: HeaderContext
): fc.Arbitrary<FuzzRequest> => {
  const body = bodyMutation(endpoint.hasBody ? example.body : undefined)
  const query = queryMutation(endpoint.queryParams, example.query ?? {})
  const path = endpoint.pathParams.length === 0
    ? undefined
    : fc.tuple(fc.constantFrom(...endpoint.pathParams), hostilePathId)
  const headers = fc.array(headerChange(context), { minLength: 1, maxLength: 2 })
  const focused: Array<fc.WeightedArbitrary<Mutations>> = [
    { weight: endpoint.hasBody ? 4 : 1, arbitrary: body.map((b) => ({ body: b })) },
    { weight: 2, arbitrary: query.map((q) => ({ query: q })) },
    { weight: 2, arbitrary: headers.map((h) => ({ headers: h })) },
    {
      weight: 2,
      arbitrary: fc.record({
        body: sometimes(body, endpoint.hasBody ? 1 : 1, endpoint.hasBody ? 1 : 4),
        query: sometimes(query, 1, 1),
        path: path === undefined ? fc.constant(undefined) : sometimes(path, 1, 1),
        headers: sometimes(headers, 1, 1)
      })
    }
  ]
  if (path !== undefined) focused.push({ weight: 3, arbitrary: path.map((p) => ({ path: p })) })
  // Unbiased: fast-check's bias favours the first of each list of constants, and here every entry matters.
  return fc.noBias(fc.oneof(...focused)).map((mutations) => assemble(endpoint, example, context, mutations))
}

/** The example with the given mutations applied. */
const assemble = (endpoint: Endpoint, example: Example, context: HeaderContext, changes: Mutations): FuzzRequest => {
  const { body, headers, path, query } = changes
  const base = exampleRequest(endpoint, example, context)
  const mutations: Array<string> = []
  const segments = encodedParams(example)
  if (path !== undefined) {
    const [name, id] = path
    segments[name] = id.value
    mutations.push(`{${name}} := ${id.label}`)
  }
  if (query !== undefined) mutations.push(query.label)
  if (body !== undefined) mutations.push(body.label)
  const sent: Record<string, string> = { ...base.headers }
  for (const change of headers ?? []) {
    const [name, value] = change.value
    if (value === undefined) delete sent[name]
    else sent[name] = value
    mutations.push(change.label)
  }
  return withDescription({
    method: endpoint.method,
    path: pathWith(endpoint, segments),
    query: query === undefined ? base.query : query.value,
    headers: sent,
    body: body === undefined ? base.body : body.value,
    mutations
  })
}

/**
 * The classic mutations, one change each: every body field with its classic values, every path parameter
 * and declared query parameter with theirs, and the classic headers. They run before the random ones, so
 * the classes of failure seen before are checked on every endpoint every time.
 */
export const classicRequests = (
  endpoint: Endpoint,
  example: Example,
  context: HeaderContext
): ReadonlyArray<FuzzRequest> => {
  const exampleQuery = Object.entries(example.query ?? {}).map(([k, v]) => [k, encode(v)] as const)
  const queries = endpoint.queryParams.flatMap((name) =>
    classicQueryValues.map((value) => ({
      label: `?${name} := ${value.label}`,
      value: toQuery([...exampleQuery.filter(([k]) => k !== name), [name, value.value]])
    }))
  )
  const readsProviderHeaders = Object.keys(example.headers ?? {}).some((name) => name.startsWith("x-service-"))
  const changes: Array<Mutations> = [
    ...(endpoint.hasBody ? classicBodies(example.body) : []).map((body) => ({ body })),
    ...endpoint.pathParams.flatMap((name) => classicPathIds.map((id) => ({ path: [name, id] as const }))),
    ...queries.map((query) => ({ query })),
    ...classicHeaderChanges(endpoint.hasBody, readsProviderHeaders).map((change) => ({ headers: [change] }))
  ]
  return changes.map((mutations) => assemble(endpoint, example, context, mutations))
}
