/**
 * The trainable tensors of USE-lite, by stable name and in a fixed order: what the training
 * scripts (scripts/train/) read and write, and what a weights delta (weights-delta.ts) changes.
 * The constants of the forward pass (timing-signal frequencies, q scales, the L2 floor, the
 * attention bias) are not in the list: they stay the base model's.
 */
import type { UseLiteLayer, UseLiteWeights } from './tfjs-weights.js';

/** One trainable tensor: `[rows, cols]` row-major, or `[n]` for a vector. */
export interface NamedTensor {
  readonly name: string;
  readonly shape: readonly number[];
  readonly data: Float32Array;
}

type LayerKey =
  | 'ln1g'
  | 'ln1b'
  | 'wqkv'
  | 'bqkv'
  | 'wo'
  | 'bo'
  | 'wr'
  | 'br'
  | 'ln2g'
  | 'ln2b'
  | 'w1'
  | 'b1'
  | 'w2'
  | 'b2';

/** Layer fields by tensor-name suffix, in list order (the names the ONNX initializers use). */
const LAYER_FIELDS: readonly (readonly [string, LayerKey])[] = [
  ['ln1.gamma', 'ln1g'],
  ['ln1.beta', 'ln1b'],
  ['qkv.weight', 'wqkv'],
  ['qkv.bias', 'bqkv'],
  ['attn_out.weight', 'wo'],
  ['attn_out.bias', 'bo'],
  ['residual.weight', 'wr'],
  ['residual.bias', 'br'],
  ['ln2.gamma', 'ln2g'],
  ['ln2.beta', 'ln2b'],
  ['ffn1.weight', 'w1'],
  ['ffn1.bias', 'b1'],
  ['ffn2.weight', 'w2'],
  ['ffn2.bias', 'b2'],
];

/** The shape of a layer field: weights are `[in, out]`, vectors `[n]`. */
function layerShape(L: UseLiteLayer, key: LayerKey): number[] {
  const d = L.d;
  switch (key) {
    case 'ln1g':
    case 'ln1b':
      return [d];
    case 'wqkv':
      return [d, 3 * d];
    case 'bqkv':
      return [3 * d];
    case 'wo':
      return [d, 512];
    case 'wr':
      return [256, 512];
    case 'w1':
      return [512, 1536];
    case 'b1':
      return [1536];
    case 'w2':
      return [1536, 512];
    default:
      return [512];
  }
}

/**
 * Every trainable tensor of the model, in a fixed order (6,975,744 values: all weights but
 * the forward pass's constants). The data are the weights' own arrays, not copies. The
 * embedding table is the source's `E` (the graph doubles it).
 *
 * @example
 * const tensors = useLiteTensors(collectWeights(readTfjsWeights(dir)))
 * tensors[0] // { name: 'embeddings', shape: [8002, 256], data: Float32Array(2048512) }
 */
export function useLiteTensors(W: UseLiteWeights): NamedTensor[] {
  const tensors: NamedTensor[] = [{ name: 'embeddings', shape: [8002, 256], data: W.embeddings }];
  W.layers.forEach((L, i) => {
    for (const [suffix, key] of LAYER_FIELDS) {
      const data = L[key];
      if (data) tensors.push({ name: `layer_${i}.${suffix}`, shape: layerShape(L, key), data });
    }
  });
  tensors.push({ name: 'head.weight', shape: [512, 512], data: W.wt }, { name: 'head.bias', shape: [512], data: W.bt });
  return tensors;
}

/**
 * The same model with some tensors replaced (by name, same length), constants kept. Throws on
 * an unknown name or a length that does not match.
 *
 * @example
 * const tuned = withTensors(base, new Map([['head.bias', newBias]]))
 */
export function withTensors(W: UseLiteWeights, replacements: ReadonlyMap<string, Float32Array>): UseLiteWeights {
  const known = new Map(useLiteTensors(W).map((t) => [t.name, t]));
  for (const [name, data] of replacements) {
    const tensor = known.get(name);
    if (!tensor) throw new Error(`unknown tensor ${name}`);
    if (data.length !== tensor.data.length)
      throw new Error(`tensor ${name}: ${data.length} values, expected ${tensor.data.length}`);
  }
  const pick = (name: string, current: Float32Array): Float32Array => replacements.get(name) ?? current;
  const layers = W.layers.map((L, i) => {
    const next: Record<string, unknown> = { ...L };
    for (const [suffix, key] of LAYER_FIELDS) {
      const data = L[key];
      if (data) next[key] = pick(`layer_${i}.${suffix}`, data);
    }
    return next as unknown as UseLiteLayer;
  });
  return {
    ...W,
    embeddings: pick('embeddings', W.embeddings),
    layers,
    wt: pick('head.weight', W.wt),
    bt: pick('head.bias', W.bt),
  };
}
