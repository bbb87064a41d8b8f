/**
 * Secret references (Portkey's `/secret-references`): where an organisation keeps a secret in its own secret
 * manager (HashiCorp Vault's KV v2, AWS Secrets Manager, Azure Key Vault, or, our extension, an entry of the
 * operator's `MCP_SECRETS_FILE`), and how the gateway logs in to fetch it. The gateway keeps the reference,
 * never the secret: it fetches the value when a record that names the reference calls out, and keeps it only
 * in a brief cache in the process.
 *
 * One schema for the entity; what callers give to create or change one derives from it. The login's secret
 * fields (`vault_token`, `aws_secret_access_key`, …) are write-only: the record carries them masked, and the
 * store keeps them encrypted beside it (`StoredSecretReference`).
 */
import { Schema, Struct } from "effect"
import { Description, Name } from "../shared/Rules.ts"

export const ManagerTypes = ["hashicorp_vault", "aws_sm", "azure_kv", "file"] as const
export const ManagerType = Schema.Literals(ManagerTypes)
export type ManagerType = typeof ManagerType.Type

/** A login's fields as given: text each (Portkey's `auth_config`). */
export const AuthConfig = Schema.Record(Schema.String, Schema.String)
export type AuthConfig = typeof AuthConfig.Type

export const Tags = Schema.NullOr(Schema.Record(Schema.String, Schema.String))

export class SecretReference extends Schema.Class<SecretReference>("SecretReference")({
  id: Schema.String,
  organisation_id: Schema.String,
  name: Name,
  /** Unique in the organisation; from the name unless given. */
  slug: Schema.String,
  description: Schema.NullOr(Description),
  manager_type: ManagerType,
  /** The login, its secret fields masked (the clear values are never answered). */
  auth_config: AuthConfig,
  /**
   * Where the secret is in its manager: Vault `<mount>/<path>` (KV v2), the AWS secret's name or ARN, the Azure
   * secret's name, or the `MCP_SECRETS_FILE` entry's id.
   */
  secret_path: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024)),
  /** The field of a JSON secret to use; null for the whole value. */
  secret_key: Schema.NullOr(Schema.String.check(Schema.isMaxLength(255))),
  allow_all_workspaces: Schema.Boolean,
  /** The workspaces (ids) that may use it, when not all may. */
  allowed_workspaces: Schema.Array(Schema.String),
  tags: Tags,
  status: Schema.Literal("ACTIVE"),
  /** The user (or, for a service key, the key) that created it. */
  created_by: Schema.String,
  created_at: Schema.String,
  last_updated_at: Schema.String
}) {}

/** A reference as stored: the record, and each secret field of its login encrypted with the master key. */
export interface StoredSecretReference {
  readonly record: SecretReference
  readonly encryptedAuth: Readonly<Record<string, string>>
}

const optional = Struct.map(
  Struct.pick(SecretReference.fields, ["description", "secret_key", "allow_all_workspaces", "tags"]),
  Schema.optionalKey
)

/**
 * A new reference (`POST`): Portkey's `CreateSecretReferenceRequest`. `allowed_workspaces` names workspaces by
 * id or slug; `auth_config` may be left out for the `file` manager, which needs no login.
 */
export const CreateSecretReference = Schema.Struct({
  ...Struct.pick(SecretReference.fields, ["name", "manager_type", "secret_path"]),
  ...optional,
  organisation_id: Schema.optionalKey(Schema.String),
  slug: Schema.optionalKey(Schema.String),
  auth_config: Schema.optionalKey(AuthConfig),
  allowed_workspaces: Schema.optionalKey(SecretReference.fields.allowed_workspaces)
})
export type CreateSecretReference = typeof CreateSecretReference.Type

/**
 * A change (`PUT`): Portkey's `UpdateSecretReferenceRequest`. `auth_config` is merged into the stored login;
 * `allowed_workspaces` replaces the list (and ends `allow_all_workspaces`).
 */
export const UpdateSecretReference = Schema.Struct({
  ...Struct.map(Struct.pick(SecretReference.fields, ["name", "secret_path"]), Schema.optionalKey),
  ...optional,
  auth_config: Schema.optionalKey(AuthConfig),
  allowed_workspaces: Schema.optionalKey(SecretReference.fields.allowed_workspaces)
})
export type UpdateSecretReference = typeof UpdateSecretReference.Type

/** Filters of the list (Portkey's query). */
export interface SecretReferenceFilter {
  readonly managerType?: ManagerType | undefined
  /** Part of the name, any case. */
  readonly search?: string | undefined
}
