/**
 * A list of names a request or a template chose (missing variables), as a header value. A name may hold any
 * character, and a header only some: a CR, an emoji or a non-Latin-1 letter made Node refuse the whole
 * answer, an empty 500. So each name is percent-encoded as UTF-8 (as `encodeURIComponent` does: letters,
 * digits and `-_.!~*'()` stay as they are, a comma becomes `%2C`, so the list splits on commas), and the list
 * is bounded: 3,000 names once made a 126 KB header, past what clients and proxies accept.
 */

/** The most names a list header carries. */
export const MAX_HEADER_LIST_ITEMS = 100

/** The most characters a list header's value takes; names that would pass it are left out. */
export const MAX_HEADER_LIST_LENGTH = 4_096

/** A lone surrogate: not UTF-8, so `encodeURIComponent` throws on it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** `text` percent-encoded as UTF-8; a lone surrogate becomes U+FFFD, as a UTF-8 encoder writes it. */
export const percentEncoded = (text: string): string => {
  try {
    return encodeURIComponent(text)
  } catch {
    return encodeURIComponent(text.replace(LONE_SURROGATE, "\ufffd"))
  }
}

/**
 * The first names, encoded, comma-separated: at most `MAX_HEADER_LIST_ITEMS` of them and
 * `MAX_HEADER_LIST_LENGTH` characters, in order, stopping at the first that does not fit; and how many
 * were left out.
 */
export const encodedHeaderList = (
  names: ReadonlyArray<string>
): { readonly value: string; readonly omitted: number } => {
  let value = ""
  let listed = 0
  for (; listed < names.length && listed < MAX_HEADER_LIST_ITEMS; listed++) {
    const encoded = percentEncoded(names[listed])
    const next = listed === 0 ? encoded : `${value},${encoded}`
    if (next.length > MAX_HEADER_LIST_LENGTH) break
    value = next
  }
  return { value, omitted: names.length - listed }
}
