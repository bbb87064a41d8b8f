/**
 * The naming rules every entity shares, defined once: a display name, a slug, an email address. Each is a
 * Schema, so that domain models and the HTTP contract (and the OpenAPI document) carry it, and a check for
 * the services, which refuse a breach with an `InvalidRequest` naming the field, whoever calls them.
 */
import { Effect, Schema } from "effect"
import { InvalidRequest } from "./Errors.ts"

const NAME_MAX_LENGTH = 255
const NAME_REQUIREMENT = `must be 1 to ${NAME_MAX_LENGTH} characters`

/** A display name: not blank, at most 255 characters. */
export const Name = Schema.String.check(
  Schema.isPattern(/\S/, { message: NAME_REQUIREMENT }),
  Schema.isMaxLength(NAME_MAX_LENGTH, { message: NAME_REQUIREMENT })
)

const SLUG_CHARACTERS = /^[a-zA-Z0-9_-]*$/

/** The lengths a slug may have; most entities take the default, MCP entities follow their own contract. */
export interface SlugLength {
  readonly minimum: number
  readonly maximum: number
}

const DEFAULT_SLUG_LENGTH: SlugLength = { minimum: 1, maximum: 64 }

const slugRequirement = ({ maximum, minimum }: SlugLength) =>
  `must be ${minimum} to ${maximum} letters, digits, '_' or '-'`

/** A slug of the given length: letters, digits, '_' and '-', fit for URLs and templates. */
export const slugOf = (length: SlugLength) => {
  const annotations = { message: slugRequirement(length) }
  return Schema.String.check(
    Schema.isPattern(SLUG_CHARACTERS, annotations),
    Schema.isMinLength(length.minimum, annotations),
    Schema.isMaxLength(length.maximum, annotations)
  )
}

/** A slug of 1 to 64 characters, what `slugify` makes. */
export const Slug = slugOf(DEFAULT_SLUG_LENGTH)

/** Surrounding spaces are admitted: the services trim and lower-case an address before they keep it. */
const EMAIL_SHAPE = /^\s*[^\s@]+@[^\s@]+\s*$/
const EMAIL_MAX_LENGTH = 320

/** An email address: something '@' something, at most 320 characters. */
export const Email = Schema.String.check(
  Schema.isPattern(EMAIL_SHAPE, { message: "must be an email address" }),
  Schema.isMaxLength(EMAIL_MAX_LENGTH, { message: "must be an email address" })
)

const isName = Schema.is(Name)
const isEmail = Schema.is(Email)
const SLUG_TESTS = new Map<string, (value: string) => boolean>()
const isSlugOf = (length: SlugLength) => {
  const key = `${length.minimum}-${length.maximum}`
  let test = SLUG_TESTS.get(key)
  if (test === undefined) SLUG_TESTS.set(key, test = Schema.is(slugOf(length)))
  return test
}

const refuse = (message: string, param: string) => Effect.fail(InvalidRequest.of(message, param))

/** Refuses a name that breaks `Name`: "name must be 1 to 255 characters." */
export const checkName = (value: string, param = "name"): Effect.Effect<void, InvalidRequest> =>
  isName(value) ? Effect.void : refuse(`${param} ${NAME_REQUIREMENT}.`, param)

/** Refuses a slug that breaks `slugOf(length)`: "slug must be 1 to 64 letters, digits, '_' or '-'." */
export const checkSlug = (
  value: string,
  length: SlugLength = DEFAULT_SLUG_LENGTH,
  param = "slug"
): Effect.Effect<void, InvalidRequest> =>
  isSlugOf(length)(value) ? Effect.void : refuse(`${param} ${slugRequirement(length)}.`, param)

/** Refuses an address that breaks `Email`, quoting it as given. */
export const checkEmail = (value: string, param = "email"): Effect.Effect<void, InvalidRequest> =>
  isEmail(value) ? Effect.void : refuse(`'${value}' is not an email address.`, param)

/** A free-text description, as every resource that has one holds it. */
export const Description = Schema.String.check(Schema.isMaxLength(1000))
