/**
 * Which parts of a request body the audit log must not keep in clear. By schema first: the fields each
 * resource defines as secret (`SECRET_FIELDS`). By name second: any field whose name, split into words over
 * camelCase, kebab-case and snake_case boundaries, says it holds a credential (`isSecretName`). By value
 * third, as a name says nothing about a credential written inside a text (`redactSecretValues`): URL
 * userinfo, `Bearer`/`Basic` credentials, `name=value` pairs and header lines with a secret name. Text that
 * is JSON is read as JSON and redacted by the same rules (see `storable.ts`).
 */
import { CONFIG_SECRET_FIELDS } from "../credentials/Config.ts"
import { VIRTUAL_KEY_SECRET_FIELDS } from "../credentials/VirtualKey.ts"
import { MCP_INTEGRATION_SECRET_FIELDS } from "../mcp/Mcp.ts"

export const REDACTED = "[REDACTED]"

/** A field's path in a body; `*` stands for any key of an object or any item of an array. */
export type FieldPath = ReadonlyArray<string>

/** The fields each audited resource type defines as secret. */
export const SECRET_FIELDS: Readonly<Record<string, ReadonlyArray<FieldPath>>> = {
  virtual_key: VIRTUAL_KEY_SECRET_FIELDS,
  config: CONFIG_SECRET_FIELDS,
  mcp_integration: MCP_INTEGRATION_SECRET_FIELDS
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

/**
 * `scheme://userinfo@`: the userinfo of a URL or DSN (`postgres://user:password@host`). Greedy up to the
 * authority's last `@`, so a password holding an unescaped `@` is covered whole.
 */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi

/** `Bearer <token>`, `Basic <base64>`: the schemes of an `Authorization` value, wherever they are written. */
const AUTH_SCHEME = /\b(bearer|basic)(\s+)([A-Za-z0-9._~+/-]+=*)/gi

/** `name=value` after a start, a space, `?`, `&`, `;` or `,`: query strings, DSNs (`password=…`), ODBC (`Pwd=…;`). */
const NAME_VALUE = /(^|[\s?&;,])([A-Za-z][A-Za-z0-9_.-]*)=("[^"]*"|'[^']*'|[^\s&;,]*)/g

/** A header line, `Name: value`. */
const HEADER_LINE = /^([ \t]*)([A-Za-z0-9!#$%&'*+.^_`|~-]+)([ \t]*:[ \t]*)(.*)$/

/** Does `token`, after `Bearer`, look like a credential rather than a word (`Bearer of`, `Bearer authentication`)? */
const looksLikeToken = (token: string) => /[0-9._~+/=-]/.test(token) || token.length >= 20

/** Is `token`, after `Basic`, base64 of `user:password`? */
const isBasicCredential = (token: string) => {
  try {
    return atob(token).includes(":")
  } catch {
    return false
  }
}

/**
 * `text` with the credentials written inside it replaced by `[REDACTED]`: a URL's userinfo (the password, or
 * the whole userinfo when it has no `:`, as a token alone often stands there), a `Bearer` token or `Basic`
 * credential, the value of a `name=value` pair whose name is secret, and, when every line of the text is a
 * header line, the value of each header whose name is secret (`isSecretField`, which may say more than
 * `isSecretName`). Undefined when nothing was redacted.
 */
export const redactSecretValues = (
  text: string,
  isSecretField: (name: string) => boolean = isSecretName
): string | undefined => {
  let out = text
  if (out.includes("://")) {
    out = out.replace(URL_USERINFO, (_match, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(":")
      return colon === -1 ? `${scheme}${REDACTED}@` : `${scheme}${userinfo.slice(0, colon)}:${REDACTED}@`
    })
  }
  out = out.replace(AUTH_SCHEME, (match, scheme: string, space: string, token: string) => {
    if (token === REDACTED) return match
    const secret = scheme.toLowerCase() === "bearer" ? looksLikeToken(token) : isBasicCredential(token)
    return secret ? `${scheme}${space}${REDACTED}` : match
  })
  if (out.includes("=")) {
    out = out.replace(
      NAME_VALUE,
      (match, before: string, name: string, value: string) =>
        value.length > 0 && isSecretField(name) ? `${before}${name}=${REDACTED}` : match
    )
  }
  if (out.includes(":")) {
    const lines = out.split(/(\r\n|\n|\r)/)
    const content = lines.filter((_, index) => index % 2 === 0 && lines[index].trim().length > 0)
    if (content.length > 0 && content.every((line) => HEADER_LINE.test(line))) {
      out = lines.map((line, index) => {
        if (index % 2 === 1) return line
        const header = HEADER_LINE.exec(line)
        if (header === null || header[4].length === 0 || !isSecretField(header[2])) return line
        return `${header[1]}${header[2]}${header[3]}${REDACTED}`
      }).join("")
    }
  }
  return out === text ? undefined : out
}
