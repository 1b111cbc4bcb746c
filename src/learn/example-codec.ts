/**
 * The binary form of a selector's learned examples in a {@link VectorCache}: a checked header,
 * the example texts and tool names as JSON, then each query's unit vector as float32. Like the
 * corpus entry, anything truncated, bit-flipped or written for another shape is refused (the
 * selector then starts over with a warning), never trusted.
 *
 * Layout (little-endian): magic `LCTX` · version u16 · flags u16 · dimensions u32 · count u32 ·
 * JSON byte length u32 · payload checksum u32 · header checksum u32 (over bytes 0..23) · JSON
 * (UTF-8, zero-padded to 4 bytes) · count × dimensions float32.
 *
 * @module
 */
import { checksumBytes } from '../hash.js';

/** One stored example: a prompt, its unit vector, the tools it used. */
export interface StoredExample {
  readonly query: string;
  readonly tools: readonly string[];
  readonly vector: Float32Array;
}

/** A decode outcome. */
export type ExampleDecodeResult =
  | { readonly ok: true; readonly examples: StoredExample[] }
  | { readonly ok: false; readonly reason: string };

const MAGIC = [0x4c, 0x43, 0x54, 0x58] as const; // "LCTX"
const VERSION = 1;
const HEADER = 28;
const FLAG_LITTLE_ENDIAN = 1;
const NATIVE_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Encode examples whose vectors all have `dimensions` floats.
 *
 * @example
 * const bytes = encodeExamples([{ query: 'weather in Oslo', tools: ['get_weather'], vector }], 512)
 */
export function encodeExamples(examples: readonly StoredExample[], dimensions: number): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(examples.map(({ query, tools }) => [query, tools])));
  const jsonPadded = (json.byteLength + 3) & ~3;
  const out = new Uint8Array(HEADER + jsonPadded + examples.length * dimensions * 4);
  out.set(json, HEADER);
  const floats = new Float32Array(out.buffer, HEADER + jsonPadded, examples.length * dimensions);
  examples.forEach((example, i) => {
    if (example.vector.length !== dimensions)
      throw new RangeError(`example ${i} has ${example.vector.length} dimensions, expected ${dimensions}`);
    floats.set(example.vector, i * dimensions);
  });
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint16(4, VERSION, true);
  view.setUint16(6, NATIVE_LITTLE_ENDIAN ? FLAG_LITTLE_ENDIAN : 0, true);
  view.setUint32(8, dimensions, true);
  view.setUint32(12, examples.length, true);
  view.setUint32(16, json.byteLength, true);
  view.setUint32(20, checksumBytes(out.subarray(HEADER)), true);
  view.setUint32(24, checksumBytes(out.subarray(0, 24)), true);
  return out;
}

/**
 * Decode and verify an entry. Never throws: a mismatch comes back as `{ ok: false, reason }`.
 *
 * @example
 * const result = decodeExamples(bytes, 512)
 * if (result.ok) result.examples.length
 */
export function decodeExamples(bytes: Uint8Array, dimensions: number): ExampleDecodeResult {
  if (!(bytes instanceof Uint8Array)) return refuse('entry is not bytes');
  if (bytes.byteLength < HEADER) return refuse(`entry is ${bytes.byteLength} bytes, shorter than its header`);
  for (let i = 0; i < MAGIC.length; i++) if (bytes[i] !== MAGIC[i]) return refuse('bad magic');
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER);
  if (view.getUint32(24, true) !== checksumBytes(bytes.subarray(0, 24))) return refuse('header checksum mismatch');
  if (view.getUint16(4, true) !== VERSION)
    return refuse(`format version ${view.getUint16(4, true)}, expected ${VERSION}`);
  if (((view.getUint16(6, true) & FLAG_LITTLE_ENDIAN) !== 0) !== NATIVE_LITTLE_ENDIAN)
    return refuse('payload byte order differs from this platform');
  if (view.getUint32(8, true) !== dimensions)
    return refuse(`entry has ${view.getUint32(8, true)} dimensions, expected ${dimensions}`);
  const count = view.getUint32(12, true);
  const jsonBytes = view.getUint32(16, true);
  const jsonPadded = (jsonBytes + 3) & ~3;
  if (bytes.byteLength !== HEADER + jsonPadded + count * dimensions * 4)
    return refuse(`entry is ${bytes.byteLength} bytes, not what its header describes`);
  // An aligned copy we own: the cache may hand back a shared or unaligned view.
  const body = bytes.slice(HEADER);
  if (view.getUint32(20, true) !== checksumBytes(body)) return refuse('payload checksum mismatch');
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body.subarray(0, jsonBytes)));
  } catch {
    return refuse('example texts are not valid JSON');
  }
  if (!Array.isArray(parsed) || parsed.length !== count) return refuse('example texts do not match the count');
  const floats = new Float32Array(body.buffer, jsonPadded, count * dimensions);
  const examples: StoredExample[] = [];
  for (let i = 0; i < count; i++) {
    const item = parsed[i] as unknown;
    if (
      !Array.isArray(item) ||
      typeof item[0] !== 'string' ||
      !Array.isArray(item[1]) ||
      !item[1].every((t) => typeof t === 'string')
    ) {
      return refuse(`example ${i} is malformed`);
    }
    const vector = floats.slice(i * dimensions, (i + 1) * dimensions);
    if (!vector.every(Number.isFinite)) return refuse(`example ${i} has a non-finite value`);
    examples.push({ query: item[0], tools: item[1] as string[], vector });
  }
  return { ok: true, examples };
}

function refuse(reason: string): ExampleDecodeResult {
  return { ok: false, reason };
}
