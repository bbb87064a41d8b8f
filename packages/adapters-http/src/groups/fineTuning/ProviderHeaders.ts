/**
 * The provider-selecting headers of the fine-tuning routes (`/v1/fine_tuning/jobs…`), read into the domain's `ProviderSelection`,
 * and the domain's refusals of a selection worded with those headers. The domain names the selection's
 * fields (`virtual_key`, `config.custom_host`, …); the client wrote headers, so errors name headers, in the
 * spelling the client used (`x-service-…` or Portkey's `x-portkey-…`, HeaderAliases.ts).
 */
import {
  type Forbidden,
  jsonProblem,
  type NoProviderSelected,
  type NotFound,
  type ProviderChoiceError,
  type ProviderKeyMissing,
  type ProviderSelection,
  type StoredKeyElsewhere,
  storedKeyRefusal
} from "@gateway-control/domain"
import { Redacted } from "effect"
import { BadRequest, badRequest, fromDomain } from "../../ApiErrors.ts"
import { type AliasedHeader, aliasedHeader, spellingOf } from "../../HeaderAliases.ts"

type Headers = Readonly<Record<string, string | undefined>>

/** The header carrying each field of the selection. */
const HEADER_OF_FIELD: Readonly<Record<string, AliasedHeader | "authorization">> = {
  virtual_key: "x-service-virtual-key",
  provider: "x-service-provider",
  api_key: "authorization",
  config: "x-service-config",
  custom_host: "x-service-custom-host"
}

const HOW =
  "Choose the provider one of four ways: x-service-virtual-key: <slug>; x-service-provider: <provider> with " +
  "Authorization: Bearer <provider key>; x-service-config: <config slug or JSON>; or x-service-provider, " +
  "Authorization and x-service-custom-host: <base URL>."

const header = (headers: Headers, name: AliasedHeader | "authorization") => {
  const value = (name === "authorization" ? headers[name] : aliasedHeader(headers, name))?.trim()
  return value === undefined || value === "" ? undefined : value
}

/** The name the client gave the header carrying `field` (`@slug` in the provider header carries `virtual_key`). */
const headerOf = (headers: Headers, field: string): string | undefined => {
  const byProvider = field === "virtual_key" && header(headers, "x-service-provider")?.startsWith("@") === true
  const name = byProvider ? "x-service-provider" : HEADER_OF_FIELD[field]
  return name === undefined || name === "authorization" ? name : spellingOf(headers, name)
}

const bearer = (authorization: string | undefined) => {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? undefined : Redacted.make(match[1])
}

/** `x-service-config` (named `name`): a JSON object inline (it starts with `{`), else a stored config's slug. */
const configOf = (value: string, name: string): ProviderSelection["config"] | BadRequest => {
  if (!value.startsWith("{")) return { _tag: "StoredConfig", slug: value }
  let config: unknown
  try {
    config = JSON.parse(value)
  } catch {
    return badRequest(`${name} is neither a config slug nor valid JSON.`, name)
  }
  // The header carries JSON like a body does, under the same input rules (InputRules.ts).
  const refused = jsonProblem(config, name)
  return refused === undefined ? { _tag: "InlineConfig", config } : badRequest(refused.message, refused.param)
}

/** The selection the headers make, or a 400 when `x-service-config` cannot be read. */
export const selectionFromHeaders = (headers: Headers): ProviderSelection | BadRequest => {
  const provider = header(headers, "x-service-provider")
  const configHeader = header(headers, "x-service-config")
  const config = configHeader === undefined
    ? undefined
    : configOf(configHeader, spellingOf(headers, "x-service-config"))
  if (config instanceof BadRequest) return config
  // `x-service-provider: @<slug>` names a virtual key, ahead of x-service-virtual-key.
  const byProvider = provider?.startsWith("@") === true
  return {
    virtual_key: byProvider ? provider!.slice(1) : header(headers, "x-service-virtual-key"),
    provider: byProvider ? undefined : provider,
    api_key: bearer(header(headers, "authorization")),
    config,
    custom_host: header(headers, "x-service-custom-host")
  }
}

/** `config.custom_host` → `x-service-config.custom_host`; names outside the selection stay as they are. */
const headerParam = (headers: Headers, param: string | null) => {
  const field = param === null ? undefined : /^[a-z_]+/.exec(param)?.[0]
  const name = field === undefined ? undefined : headerOf(headers, field)
  return name === undefined || param === null ? param : name + param.slice(field!.length)
}

/**
 * A refusal of a call through a provider, in the envelope, naming headers where the domain names selection fields, as the
 * request `headers` spelled them.
 */
export const selectionRefusal = (error: ProviderChoiceError | Forbidden | NotFound, headers: Headers) => {
  switch (error._tag) {
    case "InvalidRequest":
      return badRequest(error.message, headerParam(headers, error.param))
    case "NoProviderSelected":
      return noProvider(error)
    case "ProviderKeyMissing":
      return missingKey(error, headers)
    case "StoredKeyElsewhere":
      return storedKeyElsewhere(error, headers)
    case "Forbidden":
    case "NotFound":
    case "StoreError":
      return fromDomain(error)
  }
}

const noProvider = (_: NoProviderSelected) => badRequest(`No provider for this call. ${HOW}`)

const missingKey = (_: ProviderKeyMissing, headers: Headers) =>
  badRequest(
    `${headerOf(headers, "provider")} needs the provider key in 'Authorization: Bearer <key>'.`,
    "authorization"
  )

const storedKeyElsewhere = (error: StoredKeyElsewhere, headers: Headers) =>
  badRequest(
    storedKeyRefusal(
      error.keyHolder,
      error.hostField === "custom_host" ? headerOf(headers, "custom_host")! : `the custom_host of ${error.hostConfig}`,
      `${headerOf(headers, "provider")} with Authorization, or an inline config with provider and api_key`
    ),
    headerOf(headers, error.hostField)
  )
