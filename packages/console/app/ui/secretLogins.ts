/**
 * The logins a secret reference may use, by manager, as the API takes them (the README's "Secret references"
 * table; the API checks them again and names a wrong or missing field as `auth_config.<field>`). Secret fields
 * are write-only: typed here, sent once, and read back masked.
 */
import type { SecretManagerType } from "../api.ts"

export interface LoginField {
  readonly name: string
  readonly label: string
  /** Write-only: a password field, never filled from a read. */
  readonly secret?: boolean
  readonly optional?: boolean
}

export interface Login {
  readonly kind: string
  readonly label: string
  readonly fields: ReadonlyArray<LoginField>
}

export interface Manager {
  readonly label: string
  /** The `auth_config` field naming the login (`vault_auth_type`…); null for a manager without one. */
  readonly discriminator: string | null
  readonly logins: ReadonlyArray<Login>
  /** What `secret_path` names for this manager. */
  readonly path: string
}

const vaultAddress: LoginField = { name: "vault_addr", label: "Vault address" }
const vaultNamespace: LoginField = { name: "vault_namespace", label: "Vault namespace", optional: true }
const awsKeys: ReadonlyArray<LoginField> = [
  { name: "aws_access_key_id", label: "AWS access key id" },
  { name: "aws_secret_access_key", label: "AWS secret access key", secret: true },
  { name: "aws_region", label: "AWS region" }
]
const awsEndpoint: LoginField = { name: "aws_endpoint", label: "Secrets Manager endpoint", optional: true }

export const MANAGERS: Readonly<Record<SecretManagerType, Manager>> = {
  hashicorp_vault: {
    label: "HashiCorp Vault (KV v2)",
    discriminator: "vault_auth_type",
    path: "<KV v2 mount>/<path>",
    logins: [
      {
        kind: "token",
        label: "Token",
        fields: [vaultAddress, { name: "vault_token", label: "Vault token", secret: true }, vaultNamespace]
      },
      {
        kind: "approle",
        label: "AppRole",
        fields: [
          vaultAddress,
          { name: "vault_role_id", label: "AppRole role id" },
          { name: "vault_secret_id", label: "AppRole secret id", secret: true },
          vaultNamespace,
          { name: "vault_approle_mount", label: "AppRole mount", optional: true }
        ]
      }
    ]
  },
  aws_sm: {
    label: "AWS Secrets Manager",
    discriminator: "aws_auth_type",
    path: "the secret's name or ARN",
    logins: [
      { kind: "accessKey", label: "Access key", fields: [...awsKeys, awsEndpoint] },
      {
        kind: "assumedRole",
        label: "Assumed role",
        fields: [
          { name: "aws_role_arn", label: "Role ARN" },
          ...awsKeys,
          { name: "aws_external_id", label: "External id", optional: true },
          awsEndpoint,
          { name: "aws_sts_endpoint", label: "STS endpoint", optional: true }
        ]
      }
    ]
  },
  azure_kv: {
    label: "Azure Key Vault",
    discriminator: "azure_auth_mode",
    path: "the secret's name, or name/version",
    logins: [
      {
        kind: "entra",
        label: "Microsoft Entra app",
        fields: [
          { name: "azure_entra_tenant_id", label: "Entra tenant id" },
          { name: "azure_entra_client_id", label: "Entra client id" },
          { name: "azure_entra_client_secret", label: "Entra client secret", secret: true },
          { name: "azure_vault_url", label: "Key Vault URL" },
          { name: "azure_authority_host", label: "Entra authority host", optional: true }
        ]
      }
    ]
  },
  file: {
    label: "The gateway's secrets file (MCP_SECRETS_FILE)",
    discriminator: null,
    path: "the entry's id in MCP_SECRETS_FILE",
    logins: [{ kind: "", label: "None", fields: [] }]
  }
}

export const MANAGER_OPTIONS = Object.entries(MANAGERS).map(([type, manager]) => [type, manager.label] as const)

/** The login a reference uses, from its `auth_config`: the first of its manager's when it names none. */
export const loginOf = (type: SecretManagerType, auth: Readonly<Record<string, string>>): Login => {
  const manager = MANAGERS[type]
  const named = manager.discriminator === null ? undefined : auth[manager.discriminator]
  return manager.logins.find((login) => login.kind === named) ?? manager.logins[0]!
}

/**
 * The `auth_config` to send: the login's kind and every field typed (a secret left empty is not sent, so an
 * update keeps the stored one); undefined for a manager without a login.
 */
export const authConfigOf = (
  type: SecretManagerType,
  login: Login,
  values: Readonly<Record<string, string>>
): Record<string, string> | undefined => {
  const manager = MANAGERS[type]
  if (manager.discriminator === null) return undefined
  const typed = login.fields.flatMap((field) => {
    const raw = values[field.name] ?? ""
    // A secret goes as typed; other fields without the spaces around them.
    return raw.trim() === "" ? [] : [[field.name, field.secret === true ? raw : raw.trim()] as const]
  })
  return { [manager.discriminator]: login.kind, ...Object.fromEntries(typed) }
}
