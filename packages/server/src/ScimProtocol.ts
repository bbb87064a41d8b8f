/**
 * The SCIM protocol's parsers on well-kept libraries: filters (RFC 7644 §3.4.2.2) by `scim-query-filter-parser`,
 * PATCH (§3.5.2) by `scim-patch`. A PATCH body is first held to its schema (the PatchOp message, operations
 * `add`, `replace`, `remove`, a `remove` with a path); anything either library refuses is `ScimInvalid`, and the
 * resource is patched as a copy, all operations or none.
 */
import { SCIM_PATCH_SCHEMA, ScimInvalid, ScimProtocol, type ScimResource, ScimType } from "@gateway-control/domain"
import { Effect, Layer, Result, Schema } from "effect"
import { ScimError, scimPatch } from "scim-patch"
import { compileFilter } from "scim-query-filter-parser"

const Operation = Schema.Union([
  Schema.Struct({ op: Schema.Literal("remove"), path: Schema.String, value: Schema.optionalKey(Schema.Unknown) }),
  Schema.Struct({
    op: Schema.Literals(["add", "replace"]),
    path: Schema.optionalKey(Schema.String),
    value: Schema.optionalKey(Schema.Unknown)
  })
])

const PatchOp = Schema.Struct({
  schemas: Schema.Array(Schema.String).check(
    Schema.makeFilter((schemas) => schemas.includes(SCIM_PATCH_SCHEMA), {
      expected: `schemas with ${SCIM_PATCH_SCHEMA}`
    })
  ),
  Operations: Schema.Array(Operation).check(Schema.isMinLength(1))
})

const decodePatch = Schema.decodeUnknownResult(PatchOp)

/** A plain attribute path (`members`), which a value filter can be added to. */
const PLAIN_PATH = /^[A-Za-z][A-Za-z0-9_$-]*$/

/**
 * A `remove` of a multi-valued attribute that names the values to remove in `value`, as Microsoft Entra ID
 * sends it (`{op: "Remove", path: "members", value: [{value: "id"}]}`), as the removals by filter RFC 7644
 * §3.5.2.2 describes (`members[value eq "id"]`), one a value: `scim-patch` removes only whole equal values.
 */
const removalsByValue = (operation: unknown): ReadonlyArray<unknown> => {
  if (typeof operation !== "object" || operation === null) return [operation]
  const op = Reflect.get(operation, "op")
  const path = Reflect.get(operation, "path")
  const value = Reflect.get(operation, "value")
  if (op !== "remove" || typeof path !== "string" || !PLAIN_PATH.test(path) || !Array.isArray(value)) {
    return [operation]
  }
  const ids = value.map((item: unknown) =>
    typeof item === "object" && item !== null ? Reflect.get(item, "value") : undefined
  )
  if (ids.length === 0 || !ids.every((id) => typeof id === "string")) return [operation]
  return ids.map((id) => ({ op: "remove", path: `${path}[value eq ${JSON.stringify(id)}]` }))
}

/**
 * RFC 7644 §3.5.2: "op" is case-insensitive (Microsoft Entra ID sends "Replace"); removals by value become
 * removals by filter (`removalsByValue`).
 */
const lowerOps = (body: unknown): unknown => {
  if (typeof body !== "object" || body === null || !("Operations" in body) || !Array.isArray(body.Operations)) {
    return body
  }
  return {
    ...body,
    Operations: body.Operations.flatMap((operation: unknown) =>
      removalsByValue(
        typeof operation === "object" && operation !== null && "op" in operation && typeof operation.op === "string"
          ? { ...operation, op: operation.op.toLowerCase() }
          : operation
      )
    )
  }
}

const isScimType = Schema.is(ScimType)

const dateOf = (value: unknown) => new Date(typeof value === "string" ? value : 0)

export const layerScimProtocol = Layer.succeed(ScimProtocol)(ScimProtocol.of({
  compileFilter: (filter) =>
    Effect.try({
      try: () => {
        const matches = compileFilter(filter)
        return (resource: ScimResource) => {
          try {
            return matches(resource)
          } catch {
            return false
          }
        }
      },
      catch: () =>
        ScimInvalid.of("invalidFilter", `The filter '${filter}' is not a valid SCIM filter (RFC 7644 §3.4.2.2).`)
    }),
  applyPatch: (resource, body) => {
    const decoded = decodePatch(lowerOps(body))
    if (Result.isFailure(decoded)) {
      return Effect.fail(ScimInvalid.of("invalidSyntax", `Not a SCIM PatchOp: ${decoded.failure.message}`))
    }
    const meta = typeof resource.meta === "object" && resource.meta !== null ? resource.meta : {}
    const document = {
      ...resource,
      schemas: Array.isArray(resource.schemas) ? resource.schemas.map(String) : [],
      meta: {
        created: dateOf(Reflect.get(meta, "created")),
        lastModified: dateOf(Reflect.get(meta, "lastModified"))
      }
    }
    return Effect.try({
      try: (): ScimResource => {
        const { meta: _meta, ...patched } = scimPatch(document, [...decoded.success.Operations], {
          mutateDocument: false
        })
        return patched
      },
      catch: (error) =>
        error instanceof ScimError
          ? ScimInvalid.of(
            isScimType(error.scimCode) ? error.scimCode : "invalidValue",
            error.message
          )
          : ScimInvalid.of("invalidValue", "The patch could not be applied to the resource.")
    })
  }
}))
