/**
 * The project's fast string hash and byte checksum: wire-name suffixes, memo keys within one
 * caller's own data, and payload checksums. No `node:crypto` and no `crypto.subtle` (async,
 * and absent in some sandboxes): these run synchronously in browsers, Workers, Deno and Node.
 * They detect change and corruption; they are not secure: a chosen input reaches any value in
 * seconds. Keys of anything another request can read (a shared cache, a store) come from
 * `digest.ts` (SHA-256) instead.
 */

/**
 * A streaming 64-bit string hash (two 32-bit lanes, cyrb53-style mixing, the full 64 bits
 * kept). Each `update` is length-prefixed, so `['ab', 'c']` and `['a', 'bc']` differ.
 *
 * @example
 * const key = new Hash64().update('model-id').update('get_weather').digest() // 16 hex chars
 */
export class Hash64 {
  private h1: number;
  private h2: number;

  constructor(seed = 0) {
    this.h1 = 0xdeadbeef ^ seed;
    this.h2 = 0x41c6ce57 ^ seed;
  }

  /** Feed one string (its length first, then its UTF-16 code units). */
  update(text: string): this {
    let h1 = this.h1;
    let h2 = this.h2;
    const n = text.length;
    h1 = Math.imul(h1 ^ n, 2654435761);
    h2 = Math.imul(h2 ^ n, 1597334677);
    for (let i = 0; i < n; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  /** The two finalised 32-bit lanes (unsigned), high lane first. */
  digestWords(): [number, number] {
    let h1 = this.h1;
    let h2 = this.h2;
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return [h1 >>> 0, h2 >>> 0];
  }

  /** The finalised hash as 16 lowercase hex characters. */
  digest(): string {
    const [hi, lo] = this.digestWords();
    return hex32(hi) + hex32(lo);
  }
}

/**
 * Hash a sequence of strings to 16 hex characters.
 *
 * @example
 * hashStrings(['a', 'bc']) !== hashStrings(['ab', 'c']) // true
 */
export function hashStrings(parts: readonly string[], seed = 0): string {
  const hash = new Hash64(seed);
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/**
 * A 32-bit checksum of bytes. Every step is a bijection of the running state, so changing any
 * single 32-bit word (a flipped byte, a zeroed run within one word) always changes the result.
 * Reads whole words through a `Uint32Array` when the view is 4-byte aligned (the hot case for
 * a vector matrix), byte by byte otherwise.
 *
 * @example
 * checksumBytes(new Uint8Array([1, 2, 3])) !== checksumBytes(new Uint8Array([1, 2, 4])) // true
 */
export function checksumBytes(bytes: Uint8Array, seed = 0): number {
  let h = (0x9e3779b9 ^ seed) >>> 0;
  const words = bytes.byteLength >>> 2;
  if ((bytes.byteOffset & 3) === 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset, words);
    for (let i = 0; i < words; i++) h = mix(h, view[i] as number);
  } else {
    for (let i = 0; i < words; i++) {
      const at = i << 2;
      const word =
        ((bytes[at] as number) |
          ((bytes[at + 1] as number) << 8) |
          ((bytes[at + 2] as number) << 16) |
          ((bytes[at + 3] as number) << 24)) >>>
        0;
      h = mix(h, word);
    }
  }
  for (let at = words << 2; at < bytes.byteLength; at++) h = mix(h, (bytes[at] as number) | 0x100);
  h = mix(h, bytes.byteLength >>> 0);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

// xor then multiply by an odd constant then rotate: each a bijection of the 32-bit state.
function mix(h: number, word: number): number {
  const x = Math.imul(h ^ word, 0xcc9e2d51);
  return ((x << 15) | (x >>> 17)) >>> 0;
}

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}
