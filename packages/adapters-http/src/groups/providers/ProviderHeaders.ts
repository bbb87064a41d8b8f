/**
 * The provider-selecting headers of `GET /v1/fine_tuning/jobs`, read into the domain's `ProviderSelection`,
 * and the domain's refusals of a selection worded with those headers. The domain names the selection's
 * fields (`virtual_key`, `config.custom_host`, …); the client wrote headers, so errors name headers.
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

/** The header carrying each field of the selection. */
const HEADER_OF_FIELD: Readonly<Record<string, string>> = {
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

const header = (headers: Readonly<Record<string, string | undefined>>, name: string) => {
  const value = headers[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

const bearer = (authorization: string | undefined) => {
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization)
  return match === null ? undefined : Redacted.make(match[1])
}

/** `x-service-config`: a JSON object inline (it starts with `{`), else a stored config's slug. */
const configOf = (value: string): ProviderSelection["config"] | BadRequest => {
  if (!value.startsWith("{")) return { _tag: "StoredConfig", slug: value }
  let config: unknown
  try {
    config = JSON.parse(value)
  } catch {
    return badRequest("x-service-config is neither a config slug nor valid JSON.", "x-service-config")
  }
  // The header carries JSON like a body does, under the same input rules (InputRules.ts).
  const refused = jsonProblem(config, "x-service-config")
  return refused === undefined ? { _tag: "InlineConfig", config } : badRequest(refused.message, refused.param)
}

/** The selection the headers make, or a 400 when `x-service-config` cannot be read. */
export const selectionFromHeaders = (
  headers: Readonly<Record<string, string | undefined>>
): ProviderSelection | BadRequest => {
  const provider = header(headers, "x-service-provider")
  const configHeader = header(headers, "x-service-config")
  const config = configHeader === undefined ? undefined : configOf(configHeader)
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
const headerParam = (param: string | null) => {
  const field = param === null ? undefined : /^[a-z_]+/.exec(param)?.[0]
  const name = field === undefined ? undefined : HEADER_OF_FIELD[field]
  return name === undefined || param === null ? param : name + param.slice(field!.length)
}

/** A refusal of the listing, in the envelope, naming headers where the domain names selection fields. */
export const listingRefusal = (error: ProviderChoiceError | Forbidden | NotFound) => {
  switch (error._tag) {
    case "InvalidRequest":
      return badRequest(error.message, headerParam(error.param))
    case "NoProviderSelected":
      return noProvider(error)
    case "ProviderKeyMissing":
      return missingKey(error)
    case "StoredKeyElsewhere":
      return storedKeyElsewhere(error)
    case "Forbidden":
    case "NotFound":
      return fromDomain(error)
  }
}

const noProvider = (_: NoProviderSelected) => badRequest(`No provider for this call. ${HOW}`)

const missingKey = (_: ProviderKeyMissing) =>
  badRequest("x-service-provider needs the provider key in 'Authorization: Bearer <key>'.", "authorization")

const storedKeyElsewhere = (error: StoredKeyElsewhere) =>
  badRequest(
    storedKeyRefusal(
      error.keyHolder,
      error.hostField === "custom_host" ? "x-service-custom-host" : `the custom_host of ${error.hostConfig}`,
      "x-service-provider with Authorization, or an inline config with provider and api_key"
    ),
    HEADER_OF_FIELD[error.hostField]
  )
