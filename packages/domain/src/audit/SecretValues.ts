/**
 * Credentials written inside text, in the formats they take in data: a URL's or DSN's userinfo, the schemes
 * of an authorization value, `name=value` pairs (query strings, DSNs), header lines. A field's name says
 * nothing about these (`{"note": "postgres://app:pw@db"}`), so the audit log finds them by value. This reads
 * no request: the HTTP words here describe data a body may hold.
 */
import { isSecretName, REDACTED } from "./AuditRedaction.ts"

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
