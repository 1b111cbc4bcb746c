/**
 * The binary form of one corpus generation in a {@link VectorCache}: a fixed header, then the
 * unit-length vectors as one row-major float32 matrix. The header carries enough to refuse an
 * entry that is truncated, bit-flipped, written by another embedder shape, or stored under the
 * wrong key, so a bad entry is rebuilt instead of ranking wrongly.
 *
 * Layout (header fields little-endian):
 *
 * | offset | field                                        |
 * |--------|----------------------------------------------|
 * | 0      | magic `LCTV`                                 |
 * | 4      | version (u16), flags (u16; bit 0: LE payload)|
 * | 8      | dimensions (u32)                             |
 * | 12     | count (u32)                                  |
 * | 16     | key digest (SHA-256, 32 bytes)               |
 * | 48     | payload checksum (u32)                       |
 * | 52     | reserved (u32, zero)                         |
 * | 56     | reserved (u32, zero)                         |
 * | 60     | header checksum over bytes 0..59 (u32)       |
 * | 64     | payload: count × dimensions float32          |
 *
 * The key digest is the SHA-256 the cache key ends with (the embedder, the ordered names and
 * texts): an entry is served only for the very texts it was written for, even from a store
 * that mixed its keys up.
 *
 * @module
 */
import { checksumBytes } from '../hash.js';

/** Bytes before the payload. */
export const CORPUS_HEADER_BYTES = 64;
/** Bumped when the layout changes; older entries are then rebuilt. */
export const CORPUS_FORMAT_VERSION = 2;
const DIGEST_BYTES = 32;

const MAGIC = [0x4c, 0x43, 0x54, 0x56] as const; // "LCTV"
const FLAG_LITTLE_ENDIAN = 1;
// The payload is written in native byte order; every platform JS ships on is little-endian,
// but record it so a big-endian reader refuses (and rebuilds) rather than misreads.
const NATIVE_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** What a decoded entry must match: the shape the embedder and registry expect now. */
export interface CorpusExpectation {
  readonly dimensions: number;
  readonly count: number;
  /** The SHA-256 digest the cache key was made from (32 bytes). */
  readonly keyDigest: Uint8Array;
}

/** A decode outcome: the matrix, or why the entry was refused. */
export type CorpusDecodeResult =
  | { readonly ok: true; readonly matrix: Float32Array }
  | { readonly ok: false; readonly reason: string };

/**
 * Encode a row-major matrix of `count × dimensions` unit vectors with its header.
 *
 * @example
 * const bytes = encodeCorpus(matrix, { dimensions: 512, count: 40, keyDigest })
 */
export function encodeCorpus(matrix: Float32Array, shape: CorpusExpectation): Uint8Array {
  const { dimensions, count, keyDigest } = shape;
  if (keyDigest.byteLength !== DIGEST_BYTES)
    throw new RangeError(`key digest is ${keyDigest.byteLength} bytes, expected 32`);
  const payloadBytes = dimensions * count * 4;
  if (matrix.length !== dimensions * count) {
    throw new RangeError(`matrix holds ${matrix.length} floats, expected ${dimensions} × ${count}`);
  }
  const out = new Uint8Array(CORPUS_HEADER_BYTES + payloadBytes);
  const payload = new Uint8Array(matrix.buffer, matrix.byteOffset, payloadBytes);
  out.set(payload, CORPUS_HEADER_BYTES);

  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint16(4, CORPUS_FORMAT_VERSION, true);
  view.setUint16(6, NATIVE_LITTLE_ENDIAN ? FLAG_LITTLE_ENDIAN : 0, true);
  view.setUint32(8, dimensions, true);
  view.setUint32(12, count, true);
  out.set(keyDigest, 16);
  view.setUint32(48, checksumBytes(out.subarray(CORPUS_HEADER_BYTES)), true);
  view.setUint32(60, checksumBytes(out.subarray(0, 60)), true);
  return out;
}

/**
 * Decode and verify an entry against what the caller expects now. Never throws: any mismatch
 * (length, magic, version, byte order, dimensions, count, key, checksums, non-finite values)
 * comes back as `{ ok: false, reason }`. The matrix is a fresh, aligned copy.
 *
 * @example
 * const result = decodeCorpus(bytes, { dimensions: 512, count: 40, keyDigest })
 * if (!result.ok) console.warn(result.reason)
 */
export function decodeCorpus(bytes: Uint8Array, expected: CorpusExpectation): CorpusDecodeResult {
  if (!(bytes instanceof Uint8Array)) return refuse('entry is not bytes');
  if (bytes.byteLength < CORPUS_HEADER_BYTES) {
    return refuse(`entry is ${bytes.byteLength} bytes, shorter than its header`);
  }
  for (let i = 0; i < MAGIC.length; i++) {
    if (bytes[i] !== MAGIC[i]) return refuse('bad magic');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, CORPUS_HEADER_BYTES);
  if (view.getUint32(60, true) !== checksumBytes(bytes.subarray(0, 60))) {
    return refuse('header checksum mismatch');
  }
  const version = view.getUint16(4, true);
  if (version !== CORPUS_FORMAT_VERSION) return refuse(`format version ${version}, expected ${CORPUS_FORMAT_VERSION}`);
  const littleEndian = (view.getUint16(6, true) & FLAG_LITTLE_ENDIAN) !== 0;
  if (littleEndian !== NATIVE_LITTLE_ENDIAN) return refuse('payload byte order differs from this platform');
  const dimensions = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  if (dimensions !== expected.dimensions) {
    return refuse(`entry has ${dimensions} dimensions, expected ${expected.dimensions}`);
  }
  if (count !== expected.count) return refuse(`entry has ${count} vectors, expected ${expected.count}`);
  if (!sameBytes(bytes.subarray(16, 16 + DIGEST_BYTES), expected.keyDigest)) {
    return refuse('entry was written for other tool texts');
  }
  const payloadBytes = dimensions * count * 4;
  if (bytes.byteLength !== CORPUS_HEADER_BYTES + payloadBytes) {
    return refuse(`entry is ${bytes.byteLength} bytes, expected ${CORPUS_HEADER_BYTES + payloadBytes}`);
  }

  // Copy into an aligned buffer we own: the cache may hand back a shared or unaligned view.
  const matrix = new Float32Array(dimensions * count);
  const raw = new Uint8Array(matrix.buffer);
  raw.set(bytes.subarray(CORPUS_HEADER_BYTES));
  if (view.getUint32(48, true) !== checksumBytes(raw)) return refuse('payload checksum mismatch');
  for (let i = 0; i < matrix.length; i++) {
    if (!Number.isFinite(matrix[i] as number)) return refuse('payload holds a non-finite value');
  }
  return { ok: true, matrix };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

function refuse(reason: string): CorpusDecodeResult {
  return { ok: false, reason };
}
