/**
 * Fields of Portkey's request schemas that this gateway does not act on. A use case's input declares them, so
 * they reach the use case instead of being dropped with the unknown fields, and the use case refuses them by
 * name (400, `param` the field): a client learns at once that what it asked for will not happen.
 */
import { Effect, Schema } from "effect"
import { InvalidRequest } from "./Errors.ts"

type Declared<N extends string> = { readonly [K in N]: Schema.optionalKey<Schema.Unknown> }

/** The fields named, each optional and of any JSON value, to spread into an input Schema's fields. */
export const unsupportedFields = <const N extends string>(names: ReadonlyArray<N>): Declared<N> => {
  const fields: Record<string, Schema.optionalKey<Schema.Unknown>> = {}
  for (const name of names) fields[name] = Schema.optionalKey(Schema.Unknown)
  return fields as Declared<N>
}

/** Fails with 400 naming the first of `names` the input carries (a `null` counts as not sent). */
export const refuseUnsupported = (
  input: object,
  names: ReadonlyArray<string>,
  why: string
): Effect.Effect<void, InvalidRequest> => {
  const sent = names.find((name) => Object.hasOwn(input, name) && Reflect.get(input, name) !== null)
  return sent === undefined
    ? Effect.void
    : Effect.fail(InvalidRequest.of(`${sent} is not supported by this gateway: ${why} Leave it out.`, sent))
}
