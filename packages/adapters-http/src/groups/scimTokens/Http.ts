import { type ScimToken, ScimTokens } from "@gateway-control/domain"
import { Effect, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { GatewayApi } from "../../Api.ts"
import { asCaller, pageAsCaller } from "../../internal/caller.ts"
import { withService } from "../../internal/groupHandlers.ts"

const details = (token: ScimToken) => ({ ...token, object: "scim-token" as const })

export const ScimTokensHandlers = HttpApiBuilder.group(
  GatewayApi,
  "scimTokens",
  withService(ScimTokens, (handlers, tokens) =>
    handlers.handleAll({
      create: ({ payload }) =>
        asCaller((principal) => tokens.create(principal, payload)).pipe(
          Effect.map((issued) => ({ ...details(issued.token), token: Redacted.value(issued.plaintext) }))
        ),
      list: ({ query }) =>
        pageAsCaller(query, (principal, request) => tokens.list(principal, request)).pipe(
          Effect.map((list) => ({ ...list, data: list.data.map(details) }))
        ),
      get: ({ params }) => asCaller((principal) => tokens.get(principal, params.id)).pipe(Effect.map(details)),
      revoke: ({ params }) => asCaller((principal) => tokens.revoke(principal, params.id)).pipe(Effect.map(details))
    }))
)
