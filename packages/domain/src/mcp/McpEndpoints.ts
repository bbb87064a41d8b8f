/**
 * Where a call to an integration's MCP server goes and what it carries: its URL through the same address guard
 * as provider calls (refused when internal unless trusted, pinned to the checked addresses), its configured
 * headers, and the secrets its `secret_mappings` name, resolved in the process. Refusals name the field at
 * fault and never quote a secret.
 */
import { Effect, Option, Predicate, Redacted } from "effect"
import { makeAddressGuard } from "../fine-tuning/CustomHosts.ts"
import { SecretReferences } from "../secret-references/SecretReferences.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import { HTTP_URL_PROBLEMS, parseHttpUrl } from "../shared/HttpUrl.ts"
import { type McpIntegration, type SecretMapping, storedHeaders } from "./Mcp.ts"
import { type McpEndpoint, type McpSecret, McpSecrets, McpSettings } from "./McpConnections.ts"

/** `headers.<Name>` (or `configurations.headers.<Name>`): the header a mapping's secret is sent in. */
const HEADER_TARGET = /^(?:configurations\.)?headers\.([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/

/**
 * The configured headers (`headers`, and `custom_headers` of records stored before it became its alias) with
 * string values (anything else was never a header value), by lower-case name: header names ignore case, so a
 * mapped secret replaces a configured header of the same name.
 */
const configuredHeaders = (configurations: McpIntegration["configurations"]): Record<string, string> =>
  Object.fromEntries(
    Object.entries(storedHeaders(configurations)).flatMap(([name, value]) =>
      typeof value === "string" ? [[name.toLowerCase(), value]] : []
    )
  )

/** The mapping's value out of the secret, or what is wrong with it (words that follow "secret_mappings[i]"). */
const valueOf = (secret: McpSecret, mapping: SecretMapping): string | { readonly problem: string } => {
  const value = Redacted.value(secret.value)
  if (mapping.value_format === "string") {
    return typeof value === "string" ? value : { problem: "names a JSON secret; use value_format 'json'" }
  }
  let fields: unknown = value
  if (typeof value === "string") {
    try {
      fields = JSON.parse(value)
    } catch {
      return { problem: "names a secret that is not a JSON object" }
    }
  }
  if (!Predicate.isObject(fields) || Array.isArray(fields)) {
    return { problem: "names a secret that is not a JSON object" }
  }
  const field = Object.hasOwn(fields, mapping.secret_key)
    ? (fields as Record<string, unknown>)[mapping.secret_key]
    : undefined
  return typeof field === "string" || typeof field === "number"
    ? String(field)
    : { problem: `has no string field '${mapping.secret_key}' in its secret` }
}

/** Builds the endpoint of an integration's server, or refuses it with an `InvalidRequest` naming the field. */
export const makeEndpointOf = Effect.gen(function*() {
  const guard = yield* makeAddressGuard
  const secrets = yield* McpSecrets
  const references = yield* SecretReferences

  return Effect.fnUntraced(function*(integration: McpIntegration) {
    const settings = yield* McpSettings
    const url = parseHttpUrl(integration.url)
    if (!(url instanceof URL)) return yield* InvalidRequest.of(`url ${HTTP_URL_PROBLEMS[url]}.`, "url")
    const pinnedAddresses = yield* guard(url, "The MCP server URL's host", "url")
    const headers = configuredHeaders(integration.configurations)
    for (const [i, mapping] of integration.secret_mappings.entries()) {
      const param = `secret_mappings[${i}]`
      const target = HEADER_TARGET.exec(mapping.target_field)
      if (target === null) {
        return yield* InvalidRequest.of(
          `${param}.target_field must name a header: 'headers.<Header-Name>'.`,
          `${param}.target_field`
        )
      }
      const secret = yield* secrets.resolve(mapping.secret_reference_id)
      let value: string | { readonly problem: string }
      if (Option.isSome(secret)) {
        if (!secret.value.hosts.includes(url.host) && !secret.value.hosts.includes(url.hostname)) {
          return yield* InvalidRequest.of(
            `${param} names a secret that may not be sent to '${url.host}'.`,
            `${param}.secret_reference_id`
          )
        }
        value = valueOf(secret.value, mapping)
      } else {
        // Not an entry of MCP_SECRETS_FILE: a secret reference of the organisation, by id or slug. Its value goes
        // only to this integration's URL, which the stored-secret rule binds the mapping to.
        const resolved = yield* references.resolve({
          organisationId: integration.organisation_id,
          workspaceId: integration.workspace_id,
          reference: mapping.secret_reference_id,
          secretKey: mapping.secret_key === "" ? undefined : mapping.secret_key,
          destination: url,
          usedBy: { type: "mcp_integration", id: integration.id },
          param: `${param}.secret_reference_id`
        })
        const text = Redacted.value(resolved)
        value = typeof text === "string"
          ? text
          : { problem: "names a JSON secret: give secret_key (on the mapping or the reference) to pick a field" }
      }
      if (typeof value !== "string") return yield* InvalidRequest.of(`${param} ${value.problem}.`, param)
      headers[target[1].toLowerCase()] = value
    }
    return {
      url: url.href,
      transport: integration.transport,
      headers: Redacted.make(headers),
      pinnedAddresses,
      timeoutMs: settings.timeoutMs
    } satisfies McpEndpoint
  })
})
