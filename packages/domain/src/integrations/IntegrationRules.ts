/**
 * The rules of an integration's configuration, per provider type (Portkey's `OpenAIConfiguration`,
 * `AzureOpenAIConfiguration`, `BedrockConfiguration`, `VertexAIConfiguration`, `CustomHostConfiguration`), and
 * where its secrets go: the destination they are bound to (StoredSecretBinding.ts). Pure.
 */
import { Predicate } from "effect"
import { parseCustomHost } from "../fine-tuning/CustomHosts.ts"
import { InvalidRequest } from "../shared/Errors.ts"
import {
  type AiProviderId,
  CONFIGURATION_SECRETS,
  type ConfigurationSecret,
  type IntegrationSecretMapping,
  MASKED,
  OPENAI_COMPATIBLE
} from "./Integration.ts"

type Fields = Readonly<Record<string, unknown>>

/** The fields each type takes in `configurations`, beside `custom_host` and `custom_headers` (OpenAI-compatible). */
const FIELDS: Readonly<Record<AiProviderId, ReadonlyArray<string>>> = {
  openai: ["openai_organization", "openai_project", "custom_host", "custom_headers"],
  "together-ai": ["custom_host", "custom_headers"],
  "fireworks-ai": ["custom_host", "custom_headers"],
  "azure-openai": [
    "azure_auth_mode",
    "azure_resource_name",
    "azure_deployment_config",
    "azure_entra_tenant_id",
    "azure_entra_client_id",
    "azure_entra_client_secret",
    "azure_managed_client_id"
  ],
  bedrock: [
    "aws_auth_type",
    "aws_region",
    "aws_access_key_id",
    "aws_secret_access_key",
    "aws_role_arn",
    "aws_external_id"
  ],
  "vertex-ai": ["vertex_auth_type", "vertex_region", "vertex_project_id", "vertex_service_account_json"]
}

const SECRET_SET: ReadonlySet<string> = new Set(CONFIGURATION_SECRETS)

/** The secret fields a type may hold (`key`, `configurations.<field>`): what `secret_mappings` may name. */
export const secretFieldsOf = (type: AiProviderId): ReadonlyArray<string> => [
  ...(type === "bedrock" ? [] : ["key"]),
  ...FIELDS[type].filter((field) => SECRET_SET.has(field)).map((field) => `configurations.${field}`)
]

/** The secret fields a request gives in clear: `key`, and the secret fields of its `configurations`. */
export const givenSecretFields = (key: string | undefined, configurations: Fields | undefined): Set<string> =>
  new Set([
    ...(key === undefined ? [] : ["key"]),
    ...Object.keys(configurations ?? {}).filter((field) => SECRET_SET.has(field)).map((field) =>
      `configurations.${field}`
    )
  ])

/** What a checked `configurations` holds: the open fields (kept in the record) and the secret ones given. */
export interface CheckedConfigurations {
  readonly open: Readonly<Record<string, unknown>>
  /** The secret fields given, by `configurations.<field>`, as text (JSON text for an object). */
  readonly secret: Readonly<Record<string, string>>
}

const refuse = (message: string, field: string) => InvalidRequest.of(message, `configurations.${field}`)

const text = (fields: Fields, field: string, pattern?: RegExp, what?: string): InvalidRequest | undefined => {
  const value = fields[field]
  if (value === undefined) return undefined
  if (typeof value !== "string" || value.trim().length === 0) {
    return refuse(`${field} must be a non-empty string.`, field)
  }
  if (pattern !== undefined && !pattern.test(value)) return refuse(`${field} must be ${what}.`, field)
  return undefined
}

const oneOf = (fields: Fields, field: string, values: ReadonlyArray<string>, required: boolean) => {
  const value = fields[field]
  if (value === undefined) {
    return required
      ? refuse(`${field} is required: one of ${values.join(", ")}.`, field)
      : undefined
  }
  return typeof value === "string" && values.includes(value)
    ? undefined
    : refuse(`${field} must be one of ${values.join(", ")}.`, field)
}

const required = (fields: Fields, names: ReadonlyArray<string>, why: string, available: ReadonlySet<string>) => {
  for (const field of names) {
    if (fields[field] === undefined && !available.has(`configurations.${field}`)) {
      return refuse(`${field} is required ${why}.`, field)
    }
  }
  return undefined
}

const AZURE_RESOURCE = /^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$/
const AWS_REGION = /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/
const AWS_ROLE_ARN = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/
const AWS_ACCESS_KEY_ID = /^[A-Z0-9]{16,128}$/
const GCP_REGION = /^[a-z]+-[a-z]+\d{1,2}$/
const GCP_PROJECT = /^[a-z][a-z0-9-]{4,28}[a-z0-9]$/

const checkDeployments = (value: unknown): InvalidRequest | undefined => {
  const field = "azure_deployment_config"
  if (!Array.isArray(value) || value.length === 0) {
    return refuse(`${field} must be a list of at least one deployment.`, field)
  }
  let defaults = 0
  for (const [i, deployment] of value.entries()) {
    const at = `${field}[${i}]`
    if (!Predicate.isObject(deployment) || Array.isArray(deployment)) return refuse(`${at} must be an object.`, at)
    const d = deployment as Fields
    for (const name of ["azure_api_version", "azure_deployment_name", "azure_model_slug"]) {
      const v = d[name]
      if (typeof v !== "string" || v.trim().length === 0) return refuse(`${at}.${name} is required.`, `${at}.${name}`)
    }
    if ((d.azure_api_version as string).length > 30) {
      return refuse(`${at}.azure_api_version must be at most 30 characters.`, `${at}.azure_api_version`)
    }
    if (d.alias !== undefined && typeof d.alias !== "string") {
      return refuse(`${at}.alias must be a string.`, `${at}.alias`)
    }
    if (d.is_default !== undefined && typeof d.is_default !== "boolean") {
      return refuse(`${at}.is_default must be a boolean.`, `${at}.is_default`)
    }
    if (d.is_default === true) defaults++
    const unknown = Object.keys(d).find((name) =>
      !["azure_api_version", "azure_deployment_name", "azure_model_slug", "alias", "is_default"].includes(name)
    )
    if (unknown !== undefined) {
      return refuse(`${at}.${unknown} is not a field of an Azure deployment.`, `${at}.${unknown}`)
    }
  }
  return defaults > 1 ? refuse(`${field}: at most one deployment may be the default.`, field) : undefined
}

const checkServiceAccount = (value: unknown): InvalidRequest | undefined => {
  const field = "vertex_service_account_json"
  if (!Predicate.isObject(value) || Array.isArray(value)) {
    return refuse(`${field} must be the service account's JSON key, an object.`, field)
  }
  const account = value as Fields
  if (account.type !== "service_account") return refuse(`${field}.type must be 'service_account'.`, `${field}.type`)
  for (const name of ["project_id", "private_key", "client_email"]) {
    if (typeof account[name] !== "string" || (account[name] as string).length === 0) {
      return refuse(`${field}.${name} is required.`, `${field}.${name}`)
    }
  }
  return undefined
}

const checkHeaders = (value: unknown): InvalidRequest | undefined => {
  const field = "custom_headers"
  if (!Predicate.isObject(value) || Array.isArray(value)) {
    return refuse(`${field} must be an object of header values.`, field)
  }
  for (const [name, header] of Object.entries(value)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) return refuse(`${field}: '${name}' is not a header name.`, field)
    if (typeof header !== "string") return refuse(`${field}.${name} must be a string.`, `${field}.${name}`)
  }
  return undefined
}

/**
 * The type's own rules over `configurations`: only its fields, each well formed, those its login needs present.
 * `available` names the secret fields present without being given here (stored, or mapped to a secret
 * reference): `key`, `configurations.<field>`.
 */
export const checkConfigurations = (
  type: AiProviderId,
  configurations: Fields,
  available: ReadonlySet<string>
): CheckedConfigurations | InvalidRequest => {
  const allowed = FIELDS[type]
  for (const field of Object.keys(configurations)) {
    if (!allowed.includes(field)) {
      return refuse(
        `${field} is not a configuration of ${type}; its fields are ${allowed.join(", ")}.`,
        field
      )
    }
  }
  const c = configurations
  const problems: Array<InvalidRequest | undefined> = []
  if (c.custom_host !== undefined) {
    const host = typeof c.custom_host === "string"
      ? parseCustomHost(c.custom_host, "configurations.custom_host")
      : undefined
    problems.push(
      host === undefined
        ? refuse("custom_host must be a base URL.", "custom_host")
        : host instanceof InvalidRequest
        ? host
        : undefined
    )
  }
  if (c.custom_headers !== undefined) problems.push(checkHeaders(c.custom_headers))
  switch (type) {
    case "openai":
      problems.push(text(c, "openai_organization"), text(c, "openai_project"))
      break
    case "azure-openai": {
      problems.push(
        oneOf(c, "azure_auth_mode", ["default", "entra", "managed"], true),
        text(c, "azure_resource_name", AZURE_RESOURCE, "an Azure resource name (letters, digits and '-')"),
        required(c, ["azure_resource_name", "azure_deployment_config"], "for azure-openai", available),
        c.azure_deployment_config === undefined ? undefined : checkDeployments(c.azure_deployment_config),
        text(c, "azure_entra_tenant_id"),
        text(c, "azure_entra_client_id"),
        text(c, "azure_entra_client_secret"),
        text(c, "azure_managed_client_id")
      )
      if (c.azure_auth_mode === "entra") {
        problems.push(
          required(
            c,
            ["azure_entra_tenant_id", "azure_entra_client_id", "azure_entra_client_secret"],
            "with azure_auth_mode entra",
            available
          )
        )
      }
      break
    }
    case "bedrock": {
      problems.push(
        oneOf(c, "aws_auth_type", ["accessKey", "assumedRole"], true),
        text(c, "aws_region", AWS_REGION, "an AWS region such as us-east-1"),
        required(c, ["aws_region"], "for bedrock", available),
        text(c, "aws_access_key_id", AWS_ACCESS_KEY_ID, "an AWS access key id"),
        text(c, "aws_secret_access_key"),
        text(c, "aws_role_arn", AWS_ROLE_ARN, "an IAM role ARN (arn:aws:iam::<account>:role/<name>)"),
        c.aws_external_id === null ? undefined : text(c, "aws_external_id")
      )
      if (c.aws_auth_type === "accessKey") {
        problems.push(
          required(c, ["aws_access_key_id", "aws_secret_access_key"], "with aws_auth_type accessKey", available)
        )
      }
      if (c.aws_auth_type === "assumedRole") {
        problems.push(required(c, ["aws_role_arn"], "with aws_auth_type assumedRole", available))
      }
      break
    }
    case "vertex-ai": {
      problems.push(
        oneOf(c, "vertex_auth_type", ["basic", "serviceAccount"], true),
        text(c, "vertex_region", GCP_REGION, "a Google Cloud region such as us-central1"),
        required(c, ["vertex_region"], "for vertex-ai", available),
        text(c, "vertex_project_id", GCP_PROJECT, "a Google Cloud project id"),
        c.vertex_service_account_json === undefined ? undefined : checkServiceAccount(c.vertex_service_account_json)
      )
      if (c.vertex_auth_type === "basic") {
        problems.push(required(c, ["vertex_project_id"], "with vertex_auth_type basic", available))
      }
      if (c.vertex_auth_type === "serviceAccount") {
        problems.push(
          required(c, ["vertex_service_account_json"], "with vertex_auth_type serviceAccount", available)
        )
      }
      break
    }
    case "together-ai":
    case "fireworks-ai":
      break
  }
  const problem = problems.find((p) => p !== undefined)
  if (problem !== undefined) return problem
  const open: Record<string, unknown> = {}
  const secret: Record<string, string> = {}
  for (const [field, value] of Object.entries(c)) {
    if (SECRET_SET.has(field)) {
      secret[`configurations.${field}`] = typeof value === "string"
        ? value
        : JSON.stringify(value)
    } else open[field] = value
  }
  return { open, secret }
}

/** Does the type's login need `key`: an API key (OpenAI-compatible; Azure's default mode; Vertex's basic one). */
export const needsKey = (type: AiProviderId, configurations: Fields): boolean =>
  OPENAI_COMPATIBLE.has(type) ||
  (type === "azure-openai" && configurations.azure_auth_mode === "default") ||
  (type === "vertex-ai" && configurations.vertex_auth_type === "basic")

/** The type's rule for `key`: required where its login needs one, refused where it takes none. */
export const checkKey = (
  type: AiProviderId,
  configurations: Fields,
  available: ReadonlySet<string>
): InvalidRequest | undefined => {
  if (needsKey(type, configurations)) {
    return available.has("key")
      ? undefined
      : InvalidRequest.of(
        `key is required for ${type}: the provider's API key (or a secret_mappings entry for it).`,
        "key"
      )
  }
  return available.has("key")
    ? InvalidRequest.of(
      `key is not used by ${type} with this login; its credentials go in configurations.`,
      "key"
    )
    : undefined
}

/** The checks of `secret_mappings`: each names a secret field of the type, once, not also given in clear. */
export const checkSecretMappings = (
  type: AiProviderId,
  mappings: ReadonlyArray<IntegrationSecretMapping>,
  given: ReadonlySet<string>
): InvalidRequest | undefined => {
  const fields = secretFieldsOf(type)
  const seen = new Set<string>()
  for (const [i, mapping] of mappings.entries()) {
    const param = `secret_mappings[${i}].target_field`
    if (!fields.includes(mapping.target_field)) {
      return InvalidRequest.of(
        `target_field '${mapping.target_field}' is not a secret field of ${type}; it may be ${fields.join(", ")}.`,
        param
      )
    }
    if (seen.has(mapping.target_field)) {
      return InvalidRequest.of(`target_field '${mapping.target_field}' is mapped twice.`, param)
    }
    if (given.has(mapping.target_field)) {
      return InvalidRequest.of(
        `${mapping.target_field} is given in the request and mapped to a secret reference: give one.`,
        param
      )
    }
    seen.add(mapping.target_field)
  }
  return undefined
}

/**
 * Where the integration's secrets are sent: its custom host, else the provider's endpoint as its configuration
 * names it (`baseUrlOf` answers the OpenAI-compatible providers' base URLs).
 */
export const destinationOfIntegration = (
  type: AiProviderId,
  configurations: Fields,
  baseUrlOf: (type: AiProviderId) => string | undefined
): string => {
  if (typeof configurations.custom_host === "string") return configurations.custom_host
  switch (type) {
    case "azure-openai":
      return `https://${String(configurations.azure_resource_name)}.openai.azure.com`
    case "bedrock":
      return `https://bedrock-runtime.${String(configurations.aws_region)}.amazonaws.com`
    case "vertex-ai":
      return `https://${String(configurations.vertex_region)}-aiplatform.googleapis.com`
    default:
      return baseUrlOf(type) ?? type
  }
}

/** The field whose change moves the destination, as refusals name it. */
export const destinationFieldOf = (type: AiProviderId): string => {
  switch (type) {
    case "azure-openai":
      return "configurations.azure_resource_name"
    case "bedrock":
      return "configurations.aws_region"
    case "vertex-ai":
      return "configurations.vertex_region"
    default:
      return "configurations.custom_host"
  }
}

/** The record's `configurations`: the open fields, and `masked_<field>` for each secret one held. */
export const maskIntegrationConfigurations = (
  open: Readonly<Record<string, unknown>>,
  secretFields: Iterable<string>
): Record<string, unknown> => {
  const masked: Record<string, unknown> = { ...open }
  for (const field of secretFields) {
    if (field.startsWith("configurations.")) masked[`masked_${field.slice("configurations.".length)}`] = MASKED
  }
  return masked
}

/** The open fields of a record's `configurations` (without its `masked_` entries). */
export const openConfigurations = (configurations: Readonly<Record<string, unknown>>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(configurations).filter(([field]) =>
      !(field.startsWith("masked_") && SECRET_SET.has(field.slice("masked_".length) as ConfigurationSecret))
    )
  )
