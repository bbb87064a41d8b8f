/**
 * The size of rendered output as the answer carries it: bytes of its JSON, UTF-8 encoded.
 *
 * Rendering counts UTF-16 code units as it appends, which is cheap and never more than the bytes (every
 * unit takes at least one), so passing the bound in units already means passing it in bytes. One unit
 * takes at most `MAX_BYTES_PER_UNIT` bytes in the JSON, so only output longer than the bound divided by
 * that needs measuring exactly.
 */

/** A control character or a lone surrogate, escaped as `\u001f`: six bytes for one unit. */
export const MAX_BYTES_PER_UNIT = 6

/** The UTF-8 length of `text`; a lone surrogate counts as the replacement character's 3 bytes. */
export const utf8Length = (text: string): number => {
  let bytes = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) continue
    if (unit < 0x800) bytes += 1
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A pair: two units, four bytes.
      bytes += 2
      i++
    } else bytes += 2
  }
  return bytes
}

const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/**
 * Whether `value` takes more than `max` bytes as JSON. `units` is the length of the template output it was
 * rendered from plus the length of the template's source (which bounds its keys, punctuation and literals):
 * the JSON takes at most `MAX_BYTES_PER_UNIT` bytes per unit of that, so `value` is serialised and
 * measured only when that bound passes `max`.
 */
export const jsonLargerThan = (value: unknown, units: number, max: number): boolean =>
  units * MAX_BYTES_PER_UNIT > max && utf8Length(JSON.stringify(value)) > max
