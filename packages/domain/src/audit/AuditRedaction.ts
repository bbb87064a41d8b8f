/**
 * Which parts of a request body the audit log must not keep in clear. By schema first: the fields each
 * resource defines as secret (`SECRET_FIELDS`). By name second: any field whose name, split into words over
 * camelCase, kebab-case and snake_case boundaries, says it holds a credential (`isSecretName`). By value
 * third, as a name says nothing about a credential written inside a text (`SecretValues.ts`). Text that is
 * JSON is read as JSON and redacted by the same rules (see `internal/storable.ts`).
 */
import { CONFIG_SECRET_FIELDS } from "../credentials/Config.ts"
import { VIRTUAL_KEY_SECRET_FIELDS } from "../credentials/VirtualKey.ts"
import { INTEGRATION_SECRET_FIELDS } from "../integrations/Integration.ts"
import { MCP_INTEGRATION_SECRET_FIELDS } from "../mcp/Mcp.ts"
import { SECRET_AUTH_FIELDS } from "../secret-references/SecretReferenceRules.ts"

export const REDACTED = "[REDACTED]"

/** A field's path in a body; `*` stands for any key of an object or any item of an array. */
export type FieldPath = ReadonlyArray<string>

/** The fields each audited resource type defines as secret. */
export const SECRET_FIELDS: Readonly<Record<string, ReadonlyArray<FieldPath>>> = {
  virtual_key: VIRTUAL_KEY_SECRET_FIELDS,
  config: CONFIG_SECRET_FIELDS,
  mcp_integration: MCP_INTEGRATION_SECRET_FIELDS,
  integration: INTEGRATION_SECRET_FIELDS,
  secret_reference: [...SECRET_AUTH_FIELDS].map((field) => ["auth_config", field])
}

/** Words that make any name they appear in a secret, in any position: `client_secret`, `sessionCookie`. */
const SECRET_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "secret",
  "secrets",
  "cookie",
  "cookies",
  "authorization",
  "bearer",
  "credential",
  "credentials",
  // Names written in one case without separators arrive as one word.
  "apikey",
  "apikeys",
  "accesskey",
  "secretkey",
  "privatekey",
  "authkey",
  "masterkey",
  "accesstoken",
  "authtoken",
  "refreshtoken",
  "sessiontoken",
  "idtoken",
  "clientsecret",
  "sessionid"
])

/**
 * Words that make a name secret when they end it, the thing it names: `auth`, `x-auth`, `basic_auth`,
 * `pass`, `db_pass`; not `auth_type` or `pass_through`, which describe one.
 */
const SECRET_LAST_WORDS: ReadonlySet<string> = new Set(["auth", "pass"])

/** With one of these, `token` measures an amount of text, not a credential: `max_tokens`, `token_count`. */
const TOKEN_QUANTITY_WORDS: ReadonlySet<string> = new Set([
  "count",
  "counts",
  "limit",
  "limits",
  "max",
  "min",
  "maximum",
  "minimum",
  "budget",
  "usage",
  "used",
  "length",
  "size",
  "type",
  "types",
  "estimate",
  "cost",
  "price"
])

/** Before `key`, these name a key that is not a credential: `sort_key`, `public_key`, `virtual_key` (a slug). */
const HARMLESS_KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  "sort",
  "cache",
  "idempotency",
  "dedup",
  "dedupe",
  "deduplication",
  "primary",
  "foreign",
  "partition",
  "shard",
  "routing",
  "lookup",
  "index",
  "unique",
  "label",
  "group",
  "object",
  "public",
  "virtual",
  "masked",
  "translation",
  "message",
  "row"
])

/** After `key`, these describe the key rather than hold it: `api_key_id`, `key_name`. */
const KEY_DESCRIPTORS: ReadonlySet<string> = new Set([
  "id",
  "ids",
  "name",
  "names",
  "type",
  "types",
  "count",
  "prefix",
  "hint",
  "length",
  "version",
  "format",
  "status"
])

/** The lower-case words of a name: `X-Auth-Token`, `xAuthToken`, `x_auth_token` all give `x auth token`. */
export const wordsOf = (name: string): ReadonlyArray<string> =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word.length > 0)

/** Does a field of this name hold a credential? */
export const isSecretName = (name: string): boolean => {
  const words = wordsOf(name)
  if (words.some((word) => SECRET_WORDS.has(word))) return true
  if (words.length > 0 && SECRET_LAST_WORDS.has(words[words.length - 1])) return true
  if (words.includes("token") && !words.some((word) => TOKEN_QUANTITY_WORDS.has(word))) return true
  if (words[0] === "session" && words[1] === "id") return true
  const key = words.findIndex((word) => word === "key" || word === "keys")
  if (key === -1) return false
  if (words.slice(key + 1).some((word) => KEY_DESCRIPTORS.has(word))) return false
  return key === 0 || !HARMLESS_KEY_QUALIFIERS.has(words[key - 1])
}

/** Fields naming another field of the same object: `{"name": "X-Api-Key", "value": "…"}` hides `value`. */
const PAIR_NAME_FIELDS = ["name", "key", "header"] as const

/** Is `value` the value half of a name/value pair whose name is secret? */
export const isSecretPair = (object: Readonly<Record<string, unknown>>): boolean =>
  "value" in object &&
  PAIR_NAME_FIELDS.some((field) => typeof object[field] === "string" && isSecretName(object[field] as string))
