/**
 * The input rules as the HTTP contract declares them: `RequestInputRules`, the middleware every `/v1` group
 * declares (its implementation, and the rest of how requests are held to the domain's input rules, is in
 * InputRulesLive.ts), and the schema of instants in queries, which every store must be able to compare.
 * Clients import these with the API definition, so nothing here may pull in server code.
 */
import { Schema } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { BadRequest } from "./ApiErrors.ts"

/** The input rules on an HttpApi endpoint's path, query and JSON body, before HttpApi decodes them. */
export class RequestInputRules extends HttpApiMiddleware.Service<RequestInputRules>()(
  "@gateway-control/http/RequestInputRules",
  { error: BadRequest }
) {}

const EARLIEST = Date.parse("0001-01-01T00:00:00Z")
const LATEST = Date.parse("9999-12-31T23:59:59.999Z")

/**
 * An instant in a query, decoded to UTC: ISO 8601 (`2025-01-31`, `2025-01-31T12:00:00+02:00`; without a zone
 * it reads as UTC). Years 1 to 9999 only: PostgreSQL has no year 0 and the memory store compares ISO text.
 */
export const InstantQuery = Schema.DateTimeUtcFromString.check(
  Schema.makeFilter((instant) => instant.epochMilliseconds >= EARLIEST && instant.epochMilliseconds <= LATEST, {
    expected: "a date-time between the years 1 and 9999"
  })
)
