const encoder = new TextEncoder();

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, cut on a code-point
 * boundary (a surrogate pair is never split; a lone surrogate counts as the 3-byte U+FFFD
 * it encodes to).
 *
 * @example
 * truncateUtf8('héllo', 2)  // 'h'  ('é' takes 2 bytes and would not fit)
 * truncateUtf8('a😀b', 5)   // 'a😀' (1 + 4 bytes)
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  const limit = Math.floor(maxBytes);
  if (!(limit > 0)) return '';
  // Every UTF-16 code unit encodes to at most 3 bytes: short strings need no encoding.
  if (text.length * 3 <= limit) return text;
  // encodeInto stops before a code point that does not fit, so it never splits a pair.
  const { read } = encoder.encodeInto(text, new Uint8Array(limit));
  return text.slice(0, read);
}
