/**
 * The status a record keeps for a call's outcome. The specification's audit record names it
 * `response_status_code`, so every edge records the same number for the same outcome: the one the HTTP API
 * answers with. A failure the domain does not name here (a defect) is recorded as 500.
 */
const FAILURE_STATUS: Readonly<Record<string, number>> = {
  InvalidRequest: 400,
  UnknownScopes: 400,
  Unauthenticated: 401,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  AlreadyBootstrapped: 409,
  RateLimited: 429,
  // A token exchange refused (RFC 6749 §5.2): the token endpoint answers 400 with the OAuth error code.
  OAuthError: 400,
  // A sign-in with an identity provider refused (unknown state, a token that does not validate, no account).
  SignInRefused: 401,
  // A SCIM request the protocol refuses (a malformed filter, patch or resource): SCIM's 400.
  ScimInvalid: 400,
  // A provider call's selection the domain refuses (fine-tuning/ProviderSelection.ts), and the provider's failures.
  NoProviderSelected: 400,
  ProviderKeyMissing: 400,
  StoredKeyElsewhere: 400,
  UpstreamUnreachable: 502,
  UpstreamInvalid: 502,
  UpstreamTimedOut: 504,
  McpUnreachable: 502,
  McpTimedOut: 504,
  StoreUnavailable: 503,
  // The store could not take the change (down, or a concurrent unit of work won): the HTTP API's 503.
  StoreError: 503
}

/**
 * The status recorded for a failure: its tag's, a provider's refusal's own (passed through to the caller as it
 * came), or 500 for anything else.
 */
export const recordedStatusOf = (failure: unknown): number => {
  const tag = typeof failure === "object" && failure !== null ? Reflect.get(failure, "_tag") : undefined
  if (tag === "UpstreamRefused") {
    const status = Reflect.get(failure as object, "status")
    if (typeof status === "number") return status
  }
  return typeof tag === "string" ? FAILURE_STATUS[tag] ?? 500 : 500
}

/** Creations succeed with 201, every other change with 200, unless the use case says otherwise. */
export const successStatusOf = (record: { readonly action: string; readonly successStatus?: number }): number =>
  record.successStatus ?? (record.action === "create" ? 201 : 200)
