/**
 * The SCIM protocol's two parsers, behind a port so the domain imports only `effect`: filters (RFC 7644
 * §3.4.2.2) and PATCH operations (§3.5.2). The server implements it on well-kept libraries
 * (`scim-query-filter-parser`, `scim-patch`).
 */
import { Context, type Effect } from "effect"
import type { ScimInvalid } from "./ScimErrors.ts"
import type { ScimResource } from "./ScimUser.ts"

export class ScimProtocol extends Context.Service<
  ScimProtocol,
  {
    /** The filter as a predicate on resources; `ScimInvalid` (invalidFilter) when it does not parse. */
    readonly compileFilter: (filter: string) => Effect.Effect<(resource: ScimResource) => boolean, ScimInvalid>
    /**
     * The resource with the PATCH body's operations applied, all or none; `ScimInvalid` (invalidSyntax,
     * invalidPath, noTarget, invalidValue) when the body or an operation is malformed.
     */
    readonly applyPatch: (resource: ScimResource, patch: unknown) => Effect.Effect<ScimResource, ScimInvalid>
  }
>()("@gateway-control/ScimProtocol") {}
