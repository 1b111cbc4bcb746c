/**
 * Collision-resistant keys for what one request stores where another can read it (a shared
 * vector cache in KV, files or IndexedDB; a per-isolate memory shared by every tenant). The
 * 64-bit `Hash64` detects change and is cheap, but a chosen input reaches any of its values in
 * seconds; SHA-256 makes a key a commitment to the exact texts it was built from.
 *
 * WebCrypto's `crypto.subtle.digest` runs in Workers, Deno, Node and secure browser pages; a
 * page without it (plain http off loopback) loads a JavaScript SHA-256 on first use.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * The SHA-256 of a sequence of strings, as 64 hex characters. Each part is framed (a tag and
 * its byte length), so `['ab', 'c']` and `['a', 'bc']` differ, and a string with an unpaired
 * surrogate is encoded so that it cannot meet another string's bytes.
 *
 * @example
 * const key = await digestHex(['loopctl/corpus/v2', embedder.id, ...texts]) // 64 hex chars
 */
export async function digestHex(parts: readonly string[]): Promise<string> {
  return (await digest(parts)).hex;
}

/**
 * The SHA-256 of a sequence of strings (framed as in {@link digestHex}), as bytes and as hex.
 *
 * @example
 * const { bytes, hex } = await digest(['a', 'bc']) // Uint8Array(32), 64 hex chars
 */
export async function digest(parts: readonly string[]): Promise<{ readonly bytes: Uint8Array; readonly hex: string }> {
  const bytes = await digestBytes(parts);
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return { bytes, hex };
}

/**
 * The SHA-256 of a value's JSON text, as 64 hex characters: a key for a whole structure (a tool
 * list) without framing each part, since JSON's own syntax frames every string and
 * `JSON.stringify` escapes lone surrogates (its text is always well-formed, so its UTF-8 is
 * one-to-one). At a megabyte of tools the per-part framing cost more than the hash.
 *
 * @example
 * const key = await digestJson(['loopctl/hybrid-state/v1', tools]) // 64 hex chars
 */
export async function digestJson(value: unknown): Promise<string> {
  const bytes = encoder.encode(JSON.stringify(value) ?? 'null');
  const subtle = globalThis.crypto?.subtle;
  const hash = subtle
    ? new Uint8Array(await subtle.digest('SHA-256', bytes))
    : (await import('./sha256.js')).sha256(bytes);
  let hex = '';
  for (const byte of hash) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * The SHA-256 of a sequence of strings (framed as in {@link digestHex}), 32 bytes.
 *
 * @example
 * const digest = await digestBytes(['a', 'bc']) // Uint8Array(32)
 */
export async function digestBytes(parts: readonly string[]): Promise<Uint8Array> {
  const framed = frame(parts);
  const subtle = globalThis.crypto?.subtle;
  if (subtle) return new Uint8Array(await subtle.digest('SHA-256', framed));
  const { sha256 } = await import('./sha256.js');
  return sha256(framed);
}

// One byte of tag ('u' UTF-8, 'j' JSON for ill-formed UTF-16), four of length, then the bytes.
// TextEncoder turns every lone surrogate into U+FFFD, so two ill-formed strings could share
// UTF-8 bytes; JSON.stringify escapes them instead, which keeps the encoding one-to-one.
function frame(parts: readonly string[]): Uint8Array<ArrayBuffer> {
  const encoded = parts.map((part) => {
    const check = (part as { isWellFormed?: () => boolean }).isWellFormed;
    const wellFormed = typeof check === 'function' ? check.call(part) : !LONE_SURROGATE.test(part);
    return { tag: wellFormed ? 0x75 : 0x6a, bytes: encoder.encode(wellFormed ? part : JSON.stringify(part)) };
  });
  let total = 0;
  for (const { bytes } of encoded) total += 5 + bytes.byteLength;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let at = 0;
  for (const { tag, bytes } of encoded) {
    out[at] = tag;
    view.setUint32(at + 1, bytes.byteLength, false);
    out.set(bytes, at + 5);
    at += 5 + bytes.byteLength;
  }
  return out;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
