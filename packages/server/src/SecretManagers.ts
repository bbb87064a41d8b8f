/**
 * The secret managers a secret reference may name, behind the domain's `SecretManagers` port:
 *
 * - `hashicorp_vault`: Vault's HTTP API, KV version 2 (`GET /v1/<mount>/data/<path>`), logged in with a token
 *   or with AppRole (`POST /v1/auth/<mount>/login`, a fresh token per fetch); `X-Vault-Namespace` when given.
 * - `aws_sm`: the AWS SDK's Secrets Manager client (`GetSecretValue`), with access keys, or with a role
 *   assumed through STS (`AssumeRole`, from the access keys given, with the external id when given).
 * - `azure_kv`: Key Vault's REST API (`GET <vault>/secrets/<name>[/<version>]`, api-version 7.4) with a token
 *   from Microsoft Entra's client-credentials grant.
 * - `file`: an entry of the operator's `MCP_SECRETS_FILE`, sent only to the hosts the file lists for it.
 *
 * A manager URL the reference names that is not trusted was checked by the domain's address guard; its
 * connections are pinned to the addresses checked (`SecretFetch.pins`): Vault's and Azure's calls go through a
 * fetch on an agent of their own (`McpFetch`, as MCP sessions' do), the AWS SDK's through agents whose lookup
 * answers only those addresses. A name that rebinds to an internal address after the check is never reached.
 *
 * Values are `Redacted` as they arrive; errors carry the manager's words and status, never a secret. The AWS
 * SDK is imported the first time it is used. Its `module` builds (`dist-es`) import files without extensions,
 * which Node's loader refuses: nothing may run it under the `module` condition (vitest.config.ts says why).
 */
import { McpFetch } from "@gateway-control/adapters-mcp"
import {
  type AuthConfig,
  DEFAULT_AZURE_AUTHORITY,
  type McpSecret,
  type SecretFetch,
  SecretManagerError,
  SecretManagers,
  type SecretValue
} from "@gateway-control/domain"
import { Effect, Layer, Predicate, Redacted } from "effect"
import { Agent as HttpAgent } from "node:http"
import { Agent as HttpsAgent } from "node:https"
import { pinnedLookup } from "./ProviderConnections.ts"

export interface SecretManagerOptions {
  /** How long one call to a manager may take (each of a login and a read). */
  readonly timeoutMs: number
  /** The operator's secrets (`MCP_SECRETS_FILE`), for the `file` manager. */
  readonly fileSecrets: ReadonlyMap<string, McpSecret>
}

const fail = (message: string, status: number | null = null) => new SecretManagerError({ message, status })

/** The SDK's clients, imported the first time a reference of AWS is used (they hold memory; most never are). */
const loadSecretsManager = Effect.promise(() => import("@aws-sdk/client-secrets-manager"))
const loadSts = Effect.promise(() => import("@aws-sdk/client-sts"))

/** A JSON secret as an object of fields, text as itself. */
const valueOf = (text: string): SecretValue => {
  try {
    const parsed: unknown = JSON.parse(text)
    if (Predicate.isObject(parsed) && !Array.isArray(parsed)) return parsed as Readonly<Record<string, unknown>>
  } catch {
    // Not JSON: the text itself.
  }
  return text
}

const trimSlash = (url: string) => url.replace(/\/+$/, "")

/** Vault's or Azure's words for a refusal (`{"errors": [...]}`, `{"error": {"message"}}`), at most 300 characters. */
const reasonOf = (body: unknown): string => {
  if (Predicate.isObject(body)) {
    const errors = (body as { readonly errors?: unknown }).errors
    if (Array.isArray(errors)) return errors.filter((e) => typeof e === "string").join("; ").slice(0, 300)
    const error = (body as { readonly error?: unknown }).error
    if (Predicate.isObject(error) && typeof (error as { message?: unknown }).message === "string") {
      return String((error as { message: string }).message).slice(0, 300)
    }
    if (typeof error === "string") return error.slice(0, 300)
  }
  return ""
}

/** The checked addresses of `url`'s host, when the domain pinned it. */
type Pins = ReadonlyMap<string, ReadonlyArray<string>>

const http = (options: SecretManagerOptions, fetches: McpFetch["Service"], pins: Pins) =>
(
  what: string,
  url: string,
  init: { readonly method: "GET" | "POST"; readonly headers: Record<string, string>; readonly body?: string }
): Effect.Effect<unknown, SecretManagerError> =>
  Effect.gen(function*() {
    // A fetch on an agent of its own, pinned when the host was checked; released (with its sockets) after the body.
    const fetch = yield* fetches.fetchFor(pins.get(new URL(url).host))
    const response = yield* Effect.tryPromise({
      try: (signal) =>
        fetch(url, {
          ...init,
          redirect: "error",
          signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)])
        }),
      catch: (error) =>
        fail(
          `${what}: ${
            error instanceof Error && error.name === "TimeoutError"
              ? `no answer within ${options.timeoutMs} ms`
              : "the manager could not be reached"
          }.`
        )
    })
    const body: unknown = yield* Effect.promise(() => response.json().catch(() => undefined))
    if (!response.ok) {
      const reason = reasonOf(body)
      return yield* fail(`${what} answered ${response.status}${reason === "" ? "" : `: ${reason}`}.`, response.status)
    }
    return body
  }).pipe(Effect.scoped)

const field = (auth: AuthConfig, name: string) => auth[name] ?? ""

const vault = (options: SecretManagerOptions, fetches: McpFetch["Service"]) =>
  Effect.fnUntraced(function*(auth: AuthConfig, secretPath: string, pins: Pins) {
    const call = http(options, fetches, pins)
    const addr = trimSlash(field(auth, "vault_addr"))
    const namespace = auth["vault_namespace"]
    const base: Record<string, string> = namespace === undefined ? {} : { "x-vault-namespace": namespace }
    let token = field(auth, "vault_token")
    if (auth["vault_auth_type"] === "approle") {
      const mount = encodeURIComponent(auth["vault_approle_mount"] ?? "approle")
      const login = yield* call("Vault's AppRole login", `${addr}/v1/auth/${mount}/login`, {
        method: "POST",
        headers: { ...base, "content-type": "application/json" },
        body: JSON.stringify({ role_id: field(auth, "vault_role_id"), secret_id: field(auth, "vault_secret_id") })
      })
      const clientToken = Predicate.isObject(login) && Predicate.isObject((login as { auth?: unknown }).auth)
        ? (login as { auth: { client_token?: unknown } }).auth.client_token
        : undefined
      if (typeof clientToken !== "string") return yield* fail("Vault's AppRole login answered no client token.")
      token = clientToken
    }
    const [mount, ...rest] = secretPath.replace(/^\/+/, "").split("/")
    if (mount === undefined || mount === "" || rest.length === 0) {
      return yield* fail("secret_path must be '<KV v2 mount>/<path>', e.g. 'secret/openai'.")
    }
    const path = rest.map(encodeURIComponent).join("/")
    const read = yield* call(
      `Vault (KV v2 read of '${secretPath}')`,
      `${addr}/v1/${encodeURIComponent(mount)}/data/${path}`,
      {
        method: "GET",
        headers: { ...base, "x-vault-token": token }
      }
    )
    const data = Predicate.isObject(read) && Predicate.isObject((read as { data?: unknown }).data)
      ? (read as { data: { data?: unknown } }).data.data
      : undefined
    if (!Predicate.isObject(data) || Array.isArray(data)) {
      return yield* fail(`Vault answered no KV v2 data for '${secretPath}'.`)
    }
    return data as Readonly<Record<string, unknown>>
  })

/** The SDK's error in words: its name and message (the SDK's messages carry no credential). */
const awsFailure = (what: string) => (error: unknown) => {
  const status = Predicate.isObject(error) && Predicate.isObject((error as { $metadata?: unknown }).$metadata)
    ? (error as { $metadata: { httpStatusCode?: unknown } }).$metadata.httpStatusCode
    : undefined
  const words = error instanceof Error ? `${error.name}: ${error.message}` : "the call failed"
  return fail(`${what}: ${words.slice(0, 300)}`, typeof status === "number" ? status : null)
}

/** The SDK's connection options to the endpoint `url` names: agents pinned to its checked addresses, if any. */
const awsHandler = (options: SecretManagerOptions, url: string | undefined, pins: Pins) => {
  const pinned = url === undefined ? undefined : pins.get(new URL(url).host)
  return {
    requestTimeout: options.timeoutMs,
    connectionTimeout: options.timeoutMs,
    ...(pinned === undefined ? {} : {
      httpAgent: new HttpAgent({ lookup: pinnedLookup(pinned) }),
      httpsAgent: new HttpsAgent({ lookup: pinnedLookup(pinned) })
    })
  }
}

const aws = (options: SecretManagerOptions) =>
  Effect.fnUntraced(function*(auth: AuthConfig, secretPath: string, pins: Pins) {
    const region = field(auth, "aws_region")
    let credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } = {
      accessKeyId: field(auth, "aws_access_key_id"),
      secretAccessKey: field(auth, "aws_secret_access_key")
    }
    if (auth["aws_auth_type"] === "assumedRole") {
      const sts = yield* loadSts
      const client = new sts.STSClient({
        region,
        credentials,
        requestHandler: awsHandler(options, auth["aws_sts_endpoint"], pins),
        maxAttempts: 1,
        ...(auth["aws_sts_endpoint"] === undefined ? {} : { endpoint: auth["aws_sts_endpoint"] })
      })
      const assumed = yield* Effect.tryPromise({
        try: () =>
          client.send(
            new sts.AssumeRoleCommand({
              RoleArn: field(auth, "aws_role_arn"),
              RoleSessionName: "gateway-control",
              DurationSeconds: 900,
              ...(auth["aws_external_id"] === undefined ? {} : { ExternalId: auth["aws_external_id"] })
            })
          ),
        catch: awsFailure("AWS STS AssumeRole")
      }).pipe(Effect.ensuring(Effect.sync(() => client.destroy())))
      const c = assumed.Credentials
      if (c?.AccessKeyId === undefined || c.SecretAccessKey === undefined) {
        return yield* fail("AWS STS AssumeRole answered no credentials.")
      }
      credentials = {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        ...(c.SessionToken === undefined ? {} : { sessionToken: c.SessionToken })
      }
    }
    const sm = yield* loadSecretsManager
    const client = new sm.SecretsManagerClient({
      region,
      credentials,
      requestHandler: awsHandler(options, auth["aws_endpoint"], pins),
      maxAttempts: 1,
      ...(auth["aws_endpoint"] === undefined ? {} : { endpoint: auth["aws_endpoint"] })
    })
    const answer = yield* Effect.tryPromise({
      try: () => client.send(new sm.GetSecretValueCommand({ SecretId: secretPath })),
      catch: awsFailure(`AWS Secrets Manager GetSecretValue of '${secretPath}'`)
    }).pipe(Effect.ensuring(Effect.sync(() => client.destroy())))
    if (answer.SecretString !== undefined) return valueOf(answer.SecretString)
    if (answer.SecretBinary !== undefined) return valueOf(new TextDecoder().decode(answer.SecretBinary))
    return yield* fail(`AWS Secrets Manager answered no value for '${secretPath}'.`)
  })

const azure = (options: SecretManagerOptions, fetches: McpFetch["Service"]) =>
  Effect.fnUntraced(function*(auth: AuthConfig, secretPath: string, pins: Pins) {
    const call = http(options, fetches, pins)
    const authority = trimSlash(auth["azure_authority_host"] ?? DEFAULT_AZURE_AUTHORITY)
    const tenant = encodeURIComponent(field(auth, "azure_entra_tenant_id"))
    const grant = yield* call("Microsoft Entra's token endpoint", `${authority}/${tenant}/oauth2/v2.0/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: field(auth, "azure_entra_client_id"),
        client_secret: field(auth, "azure_entra_client_secret"),
        scope: "https://vault.azure.net/.default"
      }).toString()
    })
    const token = Predicate.isObject(grant) ? (grant as { access_token?: unknown }).access_token : undefined
    if (typeof token !== "string") return yield* fail("Microsoft Entra answered no access token.")
    const path = secretPath.replace(/^\/+/, "").split("/").map(encodeURIComponent).join("/")
    const read = yield* call(
      `Azure Key Vault (secret '${secretPath}')`,
      `${trimSlash(field(auth, "azure_vault_url"))}/secrets/${path}?api-version=7.4`,
      { method: "GET", headers: { authorization: `Bearer ${token}` } }
    )
    const value = Predicate.isObject(read) ? (read as { value?: unknown }).value : undefined
    if (typeof value !== "string") return yield* fail(`Azure Key Vault answered no value for '${secretPath}'.`)
    return valueOf(value)
  })

/** `SecretManagers` over the real managers' APIs (and the operator's secrets file), on `McpFetch`'s pinned fetches. */
export const layerSecretManagers = (options: SecretManagerOptions): Layer.Layer<SecretManagers, never, McpFetch> =>
  Layer.effect(SecretManagers, Effect.map(Effect.service(McpFetch), (fetches) => managersOn(options, fetches)))

const managersOn = (options: SecretManagerOptions, fetches: McpFetch["Service"]) => {
  const fromVault = vault(options, fetches)
  const fromAws = aws(options)
  const fromAzure = azure(options, fetches)
  const fromFile = (request: SecretFetch) => {
    const secret = options.fileSecrets.get(request.secretPath)
    if (secret === undefined) {
      return Effect.fail(fail(`MCP_SECRETS_FILE has no entry '${request.secretPath}'.`))
    }
    const host = request.destinationHost.toLowerCase()
    const hostname = host.replace(/:\d+$/, "")
    if (!secret.hosts.includes(host) && !secret.hosts.includes(hostname)) {
      return Effect.fail(fail(`MCP_SECRETS_FILE's entry '${request.secretPath}' may not be sent to '${host}'.`))
    }
    return Effect.succeed(Redacted.value(secret.value))
  }
  return SecretManagers.of({
    fetch: (request) => {
      const auth = Redacted.value(request.auth)
      const fetched = request.managerType === "hashicorp_vault"
        ? fromVault(auth, request.secretPath, request.pins)
        : request.managerType === "aws_sm"
        ? fromAws(auth, request.secretPath, request.pins)
        : request.managerType === "azure_kv"
        ? fromAzure(auth, request.secretPath, request.pins)
        : fromFile(request)
      return Effect.map(fetched, (value) => Redacted.make(value))
    }
  })
}
