/**
 * The precomputed vectors file: a registry's tool-text vectors built once (`loopctl vectors`)
 * and shipped beside an app, so a first turn over a matching registry embeds nothing. Each
 * entry is keyed by the 64-bit hash of the embedded tool text, so the file does not depend on
 * registry order, and a tool whose text changed simply finds no entry (and is embedded).
 *
 * Layout (every field little-endian):
 *
 * | offset | field                                                     |
 * |--------|-----------------------------------------------------------|
 * | 0      | magic `LCVF`                                              |
 * | 4      | version (u16)                                             |
 * | 6      | precision (u8: 0 f32, 1 f16, 2 i8), reserved (u8, zero)   |
 * | 8      | dimensions (u32)                                          |
 * | 12     | count (u32)                                               |
 * | 16     | embedder id length in UTF-8 bytes (u16), reserved (u16)   |
 * | 20     | embedder id, zero-padded to a multiple of 4 bytes          |
 * | H      | keys: count × two u32 lanes (text hash)                   |
 * |        | i8 only: count × f32 row scales                           |
 * |        | rows: count × dimensions values of the precision          |
 * |        | version 2 only: sections (see below), from a 4-byte boundary |
 * | end−4  | checksum of every byte before it (u32)                    |
 *
 * Version 2 adds sections after the rows: a count (u32, at most {@link MAX_SECTIONS}), then per
 * section a 4-character ASCII tag, its byte length (u32) and its bytes, zero-padded to 4. What a
 * selector derives once per tool list rides there (`hybrid-state.ts`: tag `hyb1`), so a first
 * turn derives nothing either. A file without sections is still written as version 1, and both
 * versions are read.
 *
 * The checksum covers the whole file, so a truncated or bit-flipped file is refused whole,
 * never half-trusted. Every size is checked against the bytes there before anything is
 * allocated for it.
 *
 * @module
 */
import { checksumBytes, Hash64 } from '../hash.js';

/** Bumped when the layout changes; a reader refuses versions it does not know (it reads 1 and 2). */
export const VECTORS_FILE_VERSION = 2;

/** Most sections a file may carry (a reader refuses more before reading any). */
export const MAX_SECTIONS = 8;

/** How rows are stored: f32 exact, f16 (default: half the size, cosine ≈ 1 − 1e-7), i8 (a quarter, cosine ≈ 1 − 3e-5). */
export type VectorsPrecision = 'f32' | 'f16' | 'i8';

const MAGIC = [0x4c, 0x43, 0x56, 0x46] as const; // "LCVF"
const PRECISIONS: readonly VectorsPrecision[] = ['f32', 'f16', 'i8'];
const BYTES_PER_VALUE: Record<VectorsPrecision, number> = { f32: 4, f16: 2, i8: 1 };
const FIXED_HEADER = 20;
const NATIVE_LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const MAX_ID_BYTES = 1024;
const SECTION_TAG = /^[a-z0-9]{4}$/;

/** One tool text and its vector, as {@link encodeVectorsFile} takes them. */
export interface VectorsEntry {
  readonly text: string;
  readonly vector: Float32Array;
}

/** What {@link encodeVectorsFile} writes besides the entries. */
export interface VectorsFileHeader {
  /** The embedder's `id`; a reader with another embedder refuses the file. */
  readonly embedderId: string;
  readonly dimensions: number;
  /** Default `'f16'`. */
  readonly precision?: VectorsPrecision;
  /**
   * Extra sections by 4-character tag (`[a-z0-9]`): what a selector derives from the tool list,
   * shipped with its vectors. With any, the file is written as version 2.
   */
  readonly sections?: Readonly<Record<string, Uint8Array>>;
}

/** A decoded, verified vectors file. Rows are converted to unit float32 vectors on lookup. */
export interface VectorsFile {
  readonly embedderId: string;
  readonly dimensions: number;
  readonly count: number;
  readonly precision: VectorsPrecision;
  readonly byteLength: number;
  /** The unit vector stored for this tool text, or undefined (no entry, or a row that cannot rank). */
  vectorFor(text: string): Float32Array | undefined;
  /** {@link vectorFor} for many texts in one pass (what a corpus build uses); aligned with `texts`. */
  vectorsFor(texts: readonly string[]): (Float32Array | undefined)[];
  /** The file's sections by tag (empty for version 1); each a copy, checked by the whole-file checksum only. */
  readonly sections: ReadonlyMap<string, Uint8Array>;
}

/** A read outcome: the file, or why it was refused. */
export type VectorsFileResult =
  | { readonly ok: true; readonly file: VectorsFile }
  | { readonly ok: false; readonly reason: string };

/**
 * The entry key of a tool text: its 64-bit hash as 16 hex characters.
 *
 * @example
 * vectorsTextKey('get weather: Current weather for a city') // '9c0f…' (16 hex chars)
 */
export function vectorsTextKey(text: string): string {
  const [hi, lo] = textKeyWords(text);
  return hex32(hi) + hex32(lo);
}

/**
 * Encode entries into a vectors file. Duplicate texts are stored once; every vector must have
 * `dimensions` finite values (it is normalised before storing).
 *
 * @example
 * const bytes = encodeVectorsFile({ embedderId: embedder.id, dimensions: 512 }, [{ text, vector }])
 */
export function encodeVectorsFile(header: VectorsFileHeader, entries: Iterable<VectorsEntry>): Uint8Array {
  const { embedderId, dimensions } = header;
  const precision = header.precision ?? 'f16';
  if (!PRECISIONS.includes(precision))
    throw new RangeError(`precision must be f32, f16 or i8, got ${String(precision)}`);
  if (!Number.isInteger(dimensions) || dimensions < 1)
    throw new RangeError(`dimensions must be a positive integer, got ${dimensions}`);
  const id = new TextEncoder().encode(embedderId);
  if (id.byteLength > MAX_ID_BYTES)
    throw new RangeError(`embedder id is ${id.byteLength} bytes, at most ${MAX_ID_BYTES}`);

  const rows = new Map<string, { words: [number, number]; vector: Float32Array }>();
  for (const { text, vector } of entries) {
    if (!(vector instanceof Float32Array) || vector.length !== dimensions) {
      throw new RangeError(`vector for ${preview(text)} has ${vector?.length ?? 'no'} values, expected ${dimensions}`);
    }
    const unit = unitCopy(vector);
    if (!unit) throw new RangeError(`vector for ${preview(text)} cannot rank (zero or non-finite)`);
    const words = textKeyWords(text);
    rows.set(hex32(words[0]) + hex32(words[1]), { words, vector: unit });
  }

  const sections = Object.entries(header.sections ?? {});
  if (sections.length > MAX_SECTIONS) throw new RangeError(`${sections.length} sections, at most ${MAX_SECTIONS}`);
  for (const [tag, bytes] of sections) {
    if (!SECTION_TAG.test(tag))
      throw new RangeError(`section tag must be 4 characters of [a-z0-9], got ${JSON.stringify(tag)}`);
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`section ${tag} must be bytes`);
  }
  const count = rows.size;
  const base = layoutOf(id.byteLength, dimensions, count, precision);
  const sectionBytes =
    sections.length === 0 ? 0 : 4 + sections.reduce((sum, [, bytes]) => sum + 8 + pad4(bytes.byteLength), 0);
  const layout = { ...base, total: base.total + sectionBytes };
  const out = new Uint8Array(layout.total);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint16(4, sections.length === 0 ? 1 : VECTORS_FILE_VERSION, true);
  out[6] = PRECISIONS.indexOf(precision);
  view.setUint32(8, dimensions, true);
  view.setUint32(12, count, true);
  view.setUint16(16, id.byteLength, true);
  out.set(id, FIXED_HEADER);

  let row = 0;
  for (const { words, vector } of rows.values()) {
    view.setUint32(layout.keys + row * 8, words[0], true);
    view.setUint32(layout.keys + row * 8 + 4, words[1], true);
    const at = layout.rows + row * dimensions * BYTES_PER_VALUE[precision];
    if (precision === 'f32') {
      for (let j = 0; j < dimensions; j++) view.setFloat32(at + j * 4, vector[j] as number, true);
    } else if (precision === 'f16') {
      for (let j = 0; j < dimensions; j++) view.setUint16(at + j * 2, toHalf(vector[j] as number), true);
    } else {
      let peak = 0;
      for (let j = 0; j < dimensions; j++) peak = Math.max(peak, Math.abs(vector[j] as number));
      const scale = peak / 127;
      view.setFloat32(layout.scales + row * 4, scale, true);
      for (let j = 0; j < dimensions; j++) view.setInt8(at + j, Math.round((vector[j] as number) / scale));
    }
    row++;
  }
  if (sections.length > 0) writeSections(out, view, base.total - 4, sections);
  view.setUint32(layout.total - 4, checksumBytes(out.subarray(0, layout.total - 4)), true);
  return out;
}

/**
 * The same vectors file with these sections (replacing any it had), as version 2; with none, the
 * file as version 1. Throws on a file {@link readVectorsFile} refuses or a bad tag.
 *
 * @example
 * const shipped = withVectorsSections(bytes, { hyb1: await encodeHybridState(all, embedder, state) })
 */
export function withVectorsSections(bytes: Uint8Array, sections: Readonly<Record<string, Uint8Array>>): Uint8Array {
  const read = readVectorsFile(bytes);
  if (!read.ok) throw new RangeError(`not a vectors file: ${read.reason}`);
  const { embedderId, dimensions, count, precision } = read.file;
  const base = layoutOf(new TextEncoder().encode(embedderId).byteLength, dimensions, count, precision);
  const entries = Object.entries(sections);
  if (entries.length > MAX_SECTIONS) throw new RangeError(`${entries.length} sections, at most ${MAX_SECTIONS}`);
  for (const [tag, section] of entries) {
    if (!SECTION_TAG.test(tag))
      throw new RangeError(`section tag must be 4 characters of [a-z0-9], got ${JSON.stringify(tag)}`);
    if (!(section instanceof Uint8Array)) throw new TypeError(`section ${tag} must be bytes`);
  }
  const extra =
    entries.length === 0 ? 0 : 4 + entries.reduce((sum, [, section]) => sum + 8 + pad4(section.byteLength), 0);
  const out = new Uint8Array(base.total + extra);
  const view = new DataView(out.buffer);
  out.set(bytes.subarray(0, base.total - 4));
  view.setUint16(4, entries.length === 0 ? 1 : VECTORS_FILE_VERSION, true);
  if (entries.length > 0) writeSections(out, view, base.total - 4, entries);
  view.setUint32(out.byteLength - 4, checksumBytes(out.subarray(0, out.byteLength - 4)), true);
  return out;
}

function writeSections(out: Uint8Array, view: DataView, from: number, sections: readonly [string, Uint8Array][]): void {
  let at = from;
  view.setUint32(at, sections.length, true);
  at += 4;
  for (const [tag, bytes] of sections) {
    for (let i = 0; i < 4; i++) out[at + i] = tag.charCodeAt(i);
    view.setUint32(at + 4, bytes.byteLength, true);
    out.set(bytes, at + 8);
    at += 8 + pad4(bytes.byteLength);
  }
}

/**
 * Verify and decode a vectors file. Never throws: a short, truncated, bit-flipped or
 * unknown-version file, or one built by another embedder or of other dimensions than
 * `expected`, comes back as `{ ok: false, reason }`.
 *
 * @example
 * const read = readVectorsFile(bytes, { embedderId: embedder.id, dimensions: embedder.dimensions })
 * if (read.ok) read.file.vectorFor(toolText('get_weather', 'Current weather'))
 */
export function readVectorsFile(
  bytes: Uint8Array,
  expected?: { readonly embedderId: string; readonly dimensions: number },
): VectorsFileResult {
  if (!(bytes instanceof Uint8Array)) return refuse('not bytes');
  const magic = MAGIC.every((byte, i) => bytes[i] === byte);
  if (bytes.byteLength >= MAGIC.length && !magic) return refuse('not a loopctl vectors file (bad magic)');
  if (bytes.byteLength < FIXED_HEADER + 4)
    return refuse(`${bytes.byteLength} bytes, shorter than a header (truncated?)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(4, true);
  if (version !== 1 && version !== VECTORS_FILE_VERSION)
    return refuse(`format version ${version}, this reader knows 1 and ${VECTORS_FILE_VERSION}`);
  const precision = PRECISIONS[bytes[6] as number];
  const dimensions = view.getUint32(8, true);
  const count = view.getUint32(12, true);
  const idBytes = view.getUint16(16, true);
  if (!precision || bytes[7] !== 0 || view.getUint16(18, true) !== 0 || idBytes > MAX_ID_BYTES || dimensions < 1) {
    return refuse('corrupt header');
  }
  const base = layoutOf(idBytes, dimensions, count, precision);
  // Version 2: the sections' count follows the rows, so the least size is 4 more.
  const least = base.total + (version === 1 ? 0 : 4);
  if (bytes.byteLength < least) return refuse(`truncated: ${bytes.byteLength} of ${least} bytes`);
  // Version 2's end is where its sections say (headers walked, nothing copied yet), so a cut file
  // reads as truncated and a length past the end as what it is, before the checksum.
  const end = version === 1 ? base.total : sectionsEnd(bytes, view, base.total - 4);
  if (typeof end === 'string') return refuse(end);
  const layout = { ...base, total: end };
  if (bytes.byteLength < layout.total) return refuse(`truncated: ${bytes.byteLength} of ${layout.total} bytes`);
  if (bytes.byteLength > layout.total)
    return refuse(`${bytes.byteLength - layout.total} unexpected bytes after the end`);
  if (view.getUint32(layout.total - 4, true) !== checksumBytes(bytes.subarray(0, layout.total - 4))) {
    return refuse('checksum mismatch (corrupt file)');
  }
  const sections =
    version === 1 ? new Map<string, Uint8Array>() : readSections(bytes, view, base.total - 4, layout.total - 4);
  if (typeof sections === 'string') return refuse(sections);
  let embedderId: string;
  try {
    embedderId = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(FIXED_HEADER, FIXED_HEADER + idBytes));
  } catch {
    return refuse('corrupt embedder id');
  }
  if (expected && embedderId !== expected.embedderId) {
    return refuse(`built by embedder "${embedderId}", this selector uses "${expected.embedderId}"`);
  }
  if (expected && dimensions !== expected.dimensions) {
    return refuse(`holds ${dimensions}-dimension vectors, this embedder makes ${expected.dimensions}`);
  }

  // One aligned copy of the rows, read through typed arrays (and immune to later edits of `bytes`).
  const rowsEnd = layout.rows + count * dimensions * BYTES_PER_VALUE[precision];
  const rows = new Uint8Array(Math.ceil((rowsEnd - layout.keys) / 4) * 4);
  rows.set(bytes.subarray(layout.keys, rowsEnd));
  const keys = new Uint32Array(rows.buffer, 0, count * 2);
  const scales = new Float32Array(rows.buffer, layout.scales - layout.keys, precision === 'i8' ? count : 0);
  const values = rows.subarray(layout.rows - layout.keys);
  const f32Rows =
    precision === 'f32' ? new Float32Array(values.buffer, values.byteOffset, count * dimensions) : undefined;
  const f16Rows =
    precision === 'f16' ? new Uint16Array(values.buffer, values.byteOffset, count * dimensions) : undefined;
  const i8Rows = precision === 'i8' ? new Int8Array(values.buffer, values.byteOffset, count * dimensions) : undefined;
  if (!NATIVE_LITTLE_ENDIAN) return refuse('this platform is big-endian; vectors files are little-endian');

  // Rows by the key's top 53 bits (an exact float64 integer); the low bits are checked on lookup.
  const index = new Map<number, number>();
  for (let row = 0; row < count; row++) index.set(indexKey(keys[row * 2] as number, keys[row * 2 + 1] as number), row);
  // One pass over every requested row: a first turn decodes a whole registry at once, and a
  // single long loop is optimised early where 1,857 short calls would run cold.
  const decodeRows = (rowsWanted: readonly number[], out: Float32Array): Uint8Array =>
    f32Rows
      ? decodeF32(f32Rows, rowsWanted, dimensions, out)
      : f16Rows
        ? decodeF16(f16Rows, rowsWanted, dimensions, out)
        : decodeI8(i8Rows as Int8Array, scales, rowsWanted, dimensions, out);
  const vectorsFor = (texts: readonly string[]): (Float32Array | undefined)[] => {
    const slots: number[] = [];
    const found: number[] = [];
    texts.forEach((text, slot) => {
      const [hi, lo] = textKeyWords(text);
      const row = index.get(indexKey(hi, lo));
      if (row !== undefined && keys[row * 2 + 1] === lo) {
        slots.push(slot);
        found.push(row);
      }
    });
    const slab = new Float32Array(found.length * dimensions);
    const usable = decodeRows(found, slab);
    const vectors: (Float32Array | undefined)[] = new Array(texts.length).fill(undefined);
    for (let k = 0; k < found.length; k++) {
      if (usable[k]) vectors[slots[k] as number] = slab.subarray(k * dimensions, (k + 1) * dimensions);
    }
    return vectors;
  };
  const file: VectorsFile = {
    embedderId,
    dimensions,
    count,
    precision,
    byteLength: layout.total,
    vectorFor: (text) => vectorsFor([text])[0],
    vectorsFor,
    sections,
  };
  return { ok: true, file };
}

/**
 * Where a version-2 file ends (after its checksum), from the section headers at `from`, or why
 * the headers are malformed. Reads only the headers, each within the bytes there.
 */
function sectionsEnd(bytes: Uint8Array, view: DataView, from: number): number | string {
  const count = view.getUint32(from, true);
  if (count > MAX_SECTIONS) return `corrupt sections: ${count} of at most ${MAX_SECTIONS}`;
  let at = from + 4;
  for (let n = 0; n < count; n++) {
    if (at + 8 > bytes.byteLength) return `truncated: ${bytes.byteLength} bytes, section ${n + 1} of ${count} missing`;
    const tag = String.fromCharCode(...bytes.subarray(at, at + 4));
    if (!SECTION_TAG.test(tag)) return `corrupt sections: tag ${JSON.stringify(tag)}`;
    const length = view.getUint32(at + 4, true);
    const left = bytes.byteLength - at - 12;
    if (length > left)
      return `truncated or oversized: section ${tag} claims ${length} bytes, ${Math.max(left, 0)} left in the file`;
    at += 8 + pad4(length);
  }
  return at + 4;
}

/**
 * The sections between `from` and `end` (the checksum), or why they are malformed. Each length
 * is checked against the bytes left before its copy is made, so a hostile count or length costs
 * nothing; the sections must fill the space exactly.
 */
function readSections(bytes: Uint8Array, view: DataView, from: number, end: number): Map<string, Uint8Array> | string {
  const sections = new Map<string, Uint8Array>();
  const count = view.getUint32(from, true);
  if (count > MAX_SECTIONS) return `corrupt sections: ${count} of at most ${MAX_SECTIONS}`;
  let at = from + 4;
  for (let n = 0; n < count; n++) {
    if (end - at < 8) return `truncated sections: section ${n + 1} of ${count} has no header`;
    const tag = String.fromCharCode(...bytes.subarray(at, at + 4));
    const length = view.getUint32(at + 4, true);
    if (!SECTION_TAG.test(tag)) return `corrupt sections: tag ${JSON.stringify(tag)}`;
    if (sections.has(tag)) return `corrupt sections: tag ${tag} twice`;
    if (length > end - at - 8) return `oversized section ${tag}: ${length} bytes, ${end - at - 8} left in the file`;
    sections.set(tag, bytes.slice(at + 8, at + 8 + length));
    at += 8 + pad4(length);
  }
  if (at !== end) return `${end - at} unexpected bytes after the sections`;
  return sections;
}

function pad4(length: number): number {
  return Math.ceil(length / 4) * 4;
}

// One function per precision, each a single nested loop over every requested row (decode,
// then scale to unit length): a first turn decodes a whole registry in one call, and one long
// loop is optimised early where thousands of short calls would run cold. Each returns, per
// row, whether it can rank (a zero or non-finite row cannot).
function decodeF32(values: Float32Array, rows: readonly number[], dimensions: number, out: Float32Array): Uint8Array {
  const usable = new Uint8Array(rows.length);
  for (let k = 0; k < rows.length; k++) {
    const from = (rows[k] as number) * dimensions;
    const to = k * dimensions;
    let sum = 0;
    for (let j = 0; j < dimensions; j++) {
      const value = values[from + j] as number;
      out[to + j] = value;
      sum += value * value;
    }
    usable[k] = scaleToUnit(out, to, dimensions, sum);
  }
  return usable;
}

function decodeF16(values: Uint16Array, rows: readonly number[], dimensions: number, out: Float32Array): Uint8Array {
  const usable = new Uint8Array(rows.length);
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  for (let k = 0; k < rows.length; k++) {
    const from = (rows[k] as number) * dimensions;
    const to = k * dimensions;
    let sum = 0;
    for (let j = 0; j < dimensions; j++) {
      const half = values[from + j] as number;
      const exponent = half & 0x7c00;
      // A normal half widens by re-biasing its exponent (15 → 127); zeros, subnormals,
      // infinities and NaN (rare in unit vectors) take the arithmetic path.
      if (exponent !== 0 && exponent !== 0x7c00)
        bits[to + j] = ((half & 0x8000) << 16) | ((exponent + 0x1c000) << 13) | ((half & 0x3ff) << 13);
      else out[to + j] = fromHalf(half);
      const value = out[to + j] as number;
      sum += value * value;
    }
    usable[k] = scaleToUnit(out, to, dimensions, sum);
  }
  return usable;
}

function decodeI8(
  values: Int8Array,
  scales: Float32Array,
  rows: readonly number[],
  dimensions: number,
  out: Float32Array,
): Uint8Array {
  const usable = new Uint8Array(rows.length);
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k] as number;
    const from = row * dimensions;
    const to = k * dimensions;
    const scale = scales[row] as number;
    let sum = 0;
    for (let j = 0; j < dimensions; j++) {
      const value = (values[from + j] as number) * scale;
      out[to + j] = value;
      sum += value * value;
    }
    usable[k] = scaleToUnit(out, to, dimensions, sum);
  }
  return usable;
}

function scaleToUnit(out: Float32Array, at: number, dimensions: number, sum: number): 0 | 1 {
  if (!(sum > 0) || !Number.isFinite(sum)) return 0;
  const unit = 1 / Math.sqrt(sum);
  for (let j = at; j < at + dimensions; j++) out[j] = (out[j] as number) * unit;
  return 1;
}

function textKeyWords(text: string): [number, number] {
  return new Hash64().update('loopctl/text/v1').update(text).digestWords();
}

/** The high 32 bits and 21 of the low ones: 53 bits, exact as a number (no string per row). */
function indexKey(hi: number, lo: number): number {
  return hi * 2097152 + (lo >>> 11);
}

interface Layout {
  readonly keys: number;
  readonly scales: number;
  readonly rows: number;
  readonly total: number;
}

function layoutOf(idBytes: number, dimensions: number, count: number, precision: VectorsPrecision): Layout {
  const keys = FIXED_HEADER + Math.ceil(idBytes / 4) * 4;
  const scales = keys + count * 8;
  const rows = scales + (precision === 'i8' ? count * 4 : 0);
  const body = rows + count * dimensions * BYTES_PER_VALUE[precision];
  return { keys, scales, rows, total: Math.ceil(body / 4) * 4 + 4 };
}

/** A unit-length copy, or undefined for a vector that cannot rank. */
function unitCopy(vector: Float32Array): Float32Array | undefined {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += (vector[i] as number) ** 2;
  if (!(sum > 0) || !Number.isFinite(sum)) return undefined;
  const scale = 1 / Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] as number) * scale;
  return out;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 → IEEE half bits, round to nearest even (unit-vector values never overflow). */
function toHalf(value: number): number {
  f32[0] = value;
  const bits = u32[0] as number;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    return sign | (half + (rest > midpoint || (rest === midpoint && half & 1) ? 1 : 0));
  }
  let half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && half & 1)) half++;
  return sign | half;
}

/** IEEE half bits → number. */
function fromHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

function hex32(value: number): string {
  return (value >>> 0).toString(16).padStart(8, '0');
}

function refuse(reason: string): VectorsFileResult {
  return { ok: false, reason };
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text);
}
