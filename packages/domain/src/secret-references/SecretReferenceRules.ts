/**
 * What each secret manager's login (`auth_config`) holds, checked field by field, and where the login is
 * sent: the destination its secret fields are bound to (StoredSecretBinding.ts). Pure.
 */
import { InvalidRequest } from "../shared/Errors.ts"
import { parseHttpUrl } from "../shared/HttpUrl.ts"
import { destinationOf } from "../shared/StoredSecretBinding.ts"
import type { AuthConfig, ManagerType } from "./SecretReference.ts"

interface LoginKind {
  readonly required: ReadonlyArray<string>
  readonly optional: ReadonlyArray<string>
}

interface ManagerLogins {
  /** The field that says which login; null for a manager with one login (or none). */
  readonly discriminator: string | null
  readonly kinds: Readonly<Record<string, LoginKind>>
}

/**
 * The logins each manager takes (Portkey's `*AuthConfig` schemas, less those that would lend the gateway's own
 * cloud identity to whoever writes a reference: AWS `serviceRole`, Azure `managed` and `default`). Our
 * extensions: `vault_approle_mount` (default `approle`), `aws_endpoint` (an S3-compatible or private endpoint
 * of Secrets Manager), `aws_sts_endpoint`, `azure_authority_host` (default `https://login.microsoftonline.com`).
 */
export const MANAGER_LOGINS: Readonly<Record<ManagerType, ManagerLogins>> = {
  hashicorp_vault: {
    discriminator: "vault_auth_type",
    kinds: {
      token: { required: ["vault_addr", "vault_token"], optional: ["vault_namespace"] },
      approle: {
        required: ["vault_addr", "vault_role_id", "vault_secret_id"],
        optional: ["vault_namespace", "vault_approle_mount"]
      }
    }
  },
  aws_sm: {
    discriminator: "aws_auth_type",
    kinds: {
      accessKey: { required: ["aws_access_key_id", "aws_secret_access_key", "aws_region"], optional: ["aws_endpoint"] },
      assumedRole: {
        required: ["aws_role_arn", "aws_region", "aws_access_key_id", "aws_secret_access_key"],
        optional: ["aws_external_id", "aws_endpoint", "aws_sts_endpoint"]
      }
    }
  },
  azure_kv: {
    discriminator: "azure_auth_mode",
    kinds: {
      entra: {
        required: ["azure_entra_tenant_id", "azure_entra_client_id", "azure_entra_client_secret", "azure_vault_url"],
        optional: ["azure_authority_host"]
      }
    }
  },
  file: { discriminator: null, kinds: { "": { required: [], optional: [] } } }
}

/** The fields of a login that are secret: write-only, encrypted at rest, masked on read, never logged. */
export const SECRET_AUTH_FIELDS: ReadonlySet<string> = new Set([
  "vault_token",
  "vault_secret_id",
  "aws_secret_access_key",
  "azure_entra_client_secret"
])

/** The URL fields of logins: each must be an http(s) URL. */
export const LOGIN_URL_FIELDS = [
  "vault_addr",
  "aws_endpoint",
  "aws_sts_endpoint",
  "azure_vault_url",
  "azure_authority_host"
] as const

/** The login checked: its kind known, its required fields given and not blank, no field it does not take. */
export const checkAuthConfig = (managerType: ManagerType, auth: AuthConfig): InvalidRequest | undefined => {
  const logins = MANAGER_LOGINS[managerType]
  const kindName = logins.discriminator === null ? "" : auth[logins.discriminator]
  // Own keys only: a kind named `__proto__` or `toString` is no login.
  const kind = kindName === undefined || !Object.hasOwn(logins.kinds, kindName) ? undefined : logins.kinds[kindName]
  if (logins.discriminator !== null && kind === undefined) {
    const known = Object.keys(logins.kinds).map((k) => `'${k}'`).join(" or ")
    return InvalidRequest.of(
      `auth_config.${logins.discriminator} must be ${known} for manager_type '${managerType}'.`,
      `auth_config.${logins.discriminator}`
    )
  }
  const { optional, required } = kind ?? { required: [], optional: [] }
  for (const field of required) {
    if ((auth[field] ?? "").trim().length === 0) {
      return InvalidRequest.of(
        `auth_config.${field} is required for this login of manager_type '${managerType}'.`,
        `auth_config.${field}`
      )
    }
  }
  const allowed = new Set([...required, ...optional, ...(logins.discriminator === null ? [] : [logins.discriminator])])
  for (const field of Object.keys(auth)) {
    if (!allowed.has(field)) {
      return InvalidRequest.of(
        `auth_config.${field} is not a field of this login of manager_type '${managerType}'.`,
        `auth_config.${field}`
      )
    }
  }
  for (const field of LOGIN_URL_FIELDS) {
    const value = auth[field]
    if (value !== undefined && !(parseHttpUrl(value) instanceof URL)) {
      return InvalidRequest.of(`auth_config.${field} must be an http or https URL.`, `auth_config.${field}`)
    }
  }
  return undefined
}

/** The login without its secret fields (the record's `auth_config` keeps these masked). */
export const splitAuthConfig = (auth: AuthConfig) => {
  const open: Record<string, string> = {}
  const secret: Record<string, string> = {}
  for (const [field, value] of Object.entries(auth)) {
    if (SECRET_AUTH_FIELDS.has(field)) secret[field] = value
    else open[field] = value
  }
  return { open, secret }
}

/** The field that names where a manager's login is sent: refusals of the stored-secret rule name it. */
export const DESTINATION_FIELD: Readonly<Record<ManagerType, string>> = {
  hashicorp_vault: "auth_config.vault_addr",
  aws_sm: "auth_config.aws_endpoint",
  azure_kv: "auth_config.azure_vault_url",
  file: "manager_type"
}

/**
 * Where the login's secrets go: Vault's address; the Secrets Manager endpoint and the STS endpoint; the Entra
 * authority and the Key Vault. Several destinations are one text of their origins, so a change of any counts.
 */
export const loginDestination = (managerType: ManagerType, auth: AuthConfig): string => {
  switch (managerType) {
    case "hashicorp_vault":
      return auth["vault_addr"] ?? ""
    case "aws_sm":
      return [
        auth["aws_endpoint"] ?? `https://secretsmanager.${auth["aws_region"] ?? ""}.amazonaws.com`,
        auth["aws_sts_endpoint"] ?? "default-sts"
      ].map(destinationOf).join(" ")
    case "azure_kv":
      return [auth["azure_authority_host"] ?? DEFAULT_AZURE_AUTHORITY, auth["azure_vault_url"] ?? ""]
        .map(destinationOf).join(" ")
    case "file":
      return "file:"
  }
}

export const DEFAULT_AZURE_AUTHORITY = "https://login.microsoftonline.com"
