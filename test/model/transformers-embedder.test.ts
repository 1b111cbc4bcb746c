/**
 * transformersEmbedder: device resolution and option handling, plus an end-to-end run of the
 * transformers.js feature-extraction pipeline, offline, on a tiny BERT-shaped fixture built
 * here (token-embedding lookup only) with the use-lite tokenizer. The use-lite folder itself is
 * not a pipeline model: its graph ends in a pooled `sentence_embedding`, not `last_hidden_state`.
 * In Node transformers.js runs on onnxruntime-node, so the pipeline runs on device 'cpu'.
 */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PreTrainedTokenizer } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTransformersDevice, transformersEmbedder } from '../../src/adapters/transformers.js';
import type { EmbedProgress } from '../../src/embed/embedder.js';
import { buildScript, cosine, ensureModel, MODEL_DIR } from './use-lite-setup.js';

const WIDTH = 8;
const VOCAB = 8002;
let root: string;
let table: Float32Array;
let tokenizer: PreTrainedTokenizer;

/** Deterministic pseudo-random table so every token has a distinct vector. */
function makeTable(): Float32Array {
  const out = new Float32Array(VOCAB * WIDTH);
  let s = 12345;
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}

/** last_hidden_state = E[input_ids] · mask — a minimal encoder the pipeline accepts as 'bert'. */
async function writeFixture(dir: string): Promise<void> {
  const { encodeModel } = await buildScript();
  const graph: Parameters<typeof encodeModel>[0] = {
    name: 'tiny',
    opset: 17,
    nodes: [
      { name: 'gather', op: 'Gather', inputs: ['table', 'input_ids'], outputs: ['emb'], attrs: { axis: 0 } },
      { name: 'cast', op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_f'], attrs: { to: 1 } },
      { name: 'unsq', op: 'Unsqueeze', inputs: ['mask_f', 'axes'], outputs: ['mask_3'] },
      { name: 'mul', op: 'Mul', inputs: ['emb', 'mask_3'], outputs: ['last_hidden_state'] },
    ],
    initializers: [
      { name: 'table', type: 1, dims: [VOCAB, WIDTH], data: table },
      { name: 'axes', type: 7, dims: [1], data: BigInt64Array.of(2n) },
    ],
    inputs: [
      { name: 'input_ids', type: 7, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: 7, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'last_hidden_state', type: 1, shape: ['batch', 'sequence', WIDTH] }],
  };
  await mkdir(join(dir, 'onnx'), { recursive: true });
  await writeFile(join(dir, 'onnx/model.onnx'), encodeModel(graph));
  await cp(join(MODEL_DIR, 'tokenizer.json'), join(dir, 'tokenizer.json'));
  await cp(join(MODEL_DIR, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
  await writeFile(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: WIDTH }));
}

/** What mean pooling + L2 norm must give for one text. */
function expected(text: string): Float32Array {
  const ids = tokenizer.encode(text, { add_special_tokens: false });
  const sum = new Float32Array(WIDTH);
  for (const id of ids) for (let k = 0; k < WIDTH; k++) sum[k] = (sum[k] as number) + (table[id * WIDTH + k] as number);
  const n = Math.hypot(...sum);
  return sum.map((v) => v / n);
}

beforeAll(async () => {
  await ensureModel();
  table = makeTable();
  root = await mkdtemp(join(tmpdir(), 'loopctl-tiny-'));
  await writeFixture(join(root, 'tiny-bert'));
  const { PreTrainedTokenizer } = await import('@huggingface/transformers');
  const json = async (file: string): Promise<unknown> => JSON.parse(await readFile(join(MODEL_DIR, file), 'utf8'));
  tokenizer = new PreTrainedTokenizer(await json('tokenizer.json'), await json('tokenizer_config.json'));
}, 120_000);

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('resolveTransformersDevice', () => {
  const browser = (gpu: boolean) => ({ node: false, webgpu: async () => gpu });
  const node = { node: true, webgpu: async () => false };

  it('auto: WebGPU with an adapter, else WASM in browsers and CPU (onnxruntime-node) in Node', async () => {
    expect(await resolveTransformersDevice('auto', browser(true))).toBe('webgpu');
    expect(await resolveTransformersDevice('auto', browser(false))).toBe('wasm');
    expect(await resolveTransformersDevice('auto', node)).toBe('cpu');
    expect(await resolveTransformersDevice('auto')).toBe('cpu'); // this process is Node
  });

  it('explicit devices', async () => {
    expect(await resolveTransformersDevice('webgpu', browser(false))).toBe('webgpu');
    expect(await resolveTransformersDevice('cpu', browser(true))).toBe('wasm');
    expect(await resolveTransformersDevice('wasm', browser(true))).toBe('wasm');
    expect(await resolveTransformersDevice('wasm', node)).toBe('cpu');
  });
});

describe('transformersEmbedder', () => {
  it('ids differ by model and dtype; dimensions come from the option or detection', () => {
    const a = transformersEmbedder({ model: 'tiny-bert', dtype: 'fp32' });
    const b = transformersEmbedder({ model: 'tiny-bert', dtype: 'q8' });
    expect(a.id).toBe('tiny-bert/fp32/mean');
    expect(a.id).not.toBe(b.id);
    expect(a.dimensions).toBe(0); // unknown until load()
    expect(transformersEmbedder({ model: 'x', dimensions: 384 }).dimensions).toBe(384);
  });

  it('runs the feature-extraction pipeline offline: mean pooling + L2 norm, order kept', async () => {
    const progress: EmbedProgress[] = [];
    const embedder = transformersEmbedder({
      model: 'tiny-bert',
      localModelPath: `${root}/`,
      dtype: 'fp32',
      batchSize: 3,
      onProgress: (p) => progress.push(p),
    });
    const backend = await embedder.load();
    expect(backend).toMatchObject({ requested: 'auto', device: 'cpu', runtime: 'onnxruntime-node', dimensions: WIDTH });
    expect(embedder.dimensions).toBe(WIDTH);
    const texts = [
      'How old are you?',
      'a',
      'The quick brown fox jumps over the lazy dog.',
      'weather in Paris',
      'zz top',
    ];
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    vectors.forEach((v, i) => {
      expect(v).toHaveLength(WIDTH);
      expect(cosine(v, expected(texts[i] as string))).toBeGreaterThan(0.99999);
    });
    expect(progress.filter((p) => p.phase === 'corpus').map((p) => p.done)).toEqual([3, 5]);
    await embedder.dispose();
  });

  it('keeps remote loading off by default and rejects a wrong dimensions option', async () => {
    const { env } = await import('@huggingface/transformers');
    const missing = transformersEmbedder({ model: 'org/not-here', localModelPath: `${root}/` });
    await expect(missing.load()).rejects.toThrow();
    expect(env.allowRemoteModels).toBe(false);
    const wrong = transformersEmbedder({
      model: 'tiny-bert',
      localModelPath: `${root}/`,
      dtype: 'fp32',
      dimensions: 384,
    });
    await expect(wrong.load()).rejects.toThrow(/8 dimensions/);
  });

  it('aborts between batches', async () => {
    const controller = new AbortController();
    const embedder = transformersEmbedder({
      model: 'tiny-bert',
      localModelPath: `${root}/`,
      dtype: 'fp32',
      batchSize: 1,
      onProgress: (p) => {
        if (p.phase === 'corpus') controller.abort();
      },
    });
    await expect(embedder.embed(['a', 'b', 'c'], { signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    await embedder.dispose();
  });
});
