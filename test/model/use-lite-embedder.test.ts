/**
 * useLiteEmbedder behaviour in Node (onnxruntime-web WASM, single thread; the native runtime has
 * its own file, use-lite-native.test.ts): shape, unit length, empty strings, batching invariance,
 * order, abort, progress, custom loader, backend info, the session's optimisation level.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { pickDevice } from '../../src/adapters/ort-runtime.js';
import { resolveModelFile, type UseLiteEmbedder, useLiteEmbedder } from '../../src/adapters/use-lite.js';
import { createUseLiteTokenizer, type UseLiteVocabEntry } from '../../src/adapters/use-lite-tokenizer.js';
import type { EmbedProgress } from '../../src/embed/embedder.js';
import { generateSentences } from './use-lite-sentences.js';
import { buildScript, cosine, ensureModel, MODEL_DIR } from './use-lite-setup.js';

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
let embedder: UseLiteEmbedder;

beforeAll(async () => {
  await ensureModel();
  embedder = useLiteEmbedder({ modelPath: MODEL_DIR, device: 'wasm' });
}, 120_000);

describe('useLiteEmbedder', () => {
  it('loads on WASM in Node and reports the backend and timings', async () => {
    expect(embedder.backend).toBeUndefined();
    const started = performance.now();
    const backend = await embedder.load();
    const loadMs = performance.now() - started;
    expect(backend).toMatchObject({ device: 'wasm', dtype: 'int8', numThreads: 1 });
    expect(backend.fallbackReason).toBeUndefined(); // asked for, not fallen back to
    expect(embedder.backend).toBe(backend);
    // The runtime started alongside the downloads and was up within the load.
    expect(backend.loadPhases.runtime).toBeGreaterThan(0);
    expect(backend.loadPhases.runtime).toBeLessThanOrEqual(backend.loadMs);
    const query = ['What is the weather in Paris tomorrow?'];
    await embedder.embed(query); // warm the WASM tiers
    const runs = 20;
    const t0 = performance.now();
    for (let i = 0; i < runs; i++) await embedder.embed(query);
    console.info(
      `use-lite int8 load ${loadMs.toFixed(0)} ms (${(backend.modelBytes / 1e6).toFixed(2)} MB), ` +
        `per query ${((performance.now() - t0) / runs).toFixed(2)} ms (Node, WASM, 1 thread)`,
    );
    expect(await pickDevice('auto')).toBe('wasm');
  });

  it('has a dtype-specific id and 512 dimensions', () => {
    expect(embedder.id).toBe('use-lite/int8/mean/tok2');
    expect(embedder.dimensions).toBe(512);
    const fp32 = useLiteEmbedder({ modelPath: MODEL_DIR, dtype: 'fp32' });
    expect(fp32.id).toBe('use-lite/fp32/mean/tok2');
    expect(fp32.id).not.toBe(embedder.id);
  });

  it('returns unit-length, finite 512-d vectors in input order', async () => {
    const texts = generateSentences().slice(0, 50);
    const vectors = await embedder.embed(texts);
    expect(vectors).toHaveLength(texts.length);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(512);
      expect(v.every(Number.isFinite)).toBe(true);
      expect(norm(v)).toBeCloseTo(1, 5);
    }
    // Internal length sorting must not leak into the output order.
    const reversed = await embedder.embed([...texts].reverse());
    for (const [i, v] of reversed.reverse().entries())
      expect(cosine(v, vectors[i] as Float32Array)).toBeGreaterThan(0.99999);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('embeds empty strings instead of dropping them (as a fully masked row: l2norm(tanh(b_t)))', async () => {
    const { readTfjsWeights, collectWeights } = await buildScript();
    const { bt } = collectWeights(readTfjsWeights());
    const expected = Float32Array.from(bt, Math.tanh);
    const [alone] = await embedder.embed(['']);
    const mixed = await embedder.embed(['a', '', 'b', '']);
    expect(mixed).toHaveLength(4);
    for (const v of [alone as Float32Array, mixed[1] as Float32Array, mixed[3] as Float32Array]) {
      expect(norm(v)).toBeCloseTo(1, 5);
      expect(cosine(v, expected)).toBeGreaterThan(0.9999);
    }
    expect(cosine(mixed[0] as Float32Array, mixed[1] as Float32Array)).toBeLessThan(0.99);
  });

  it('gives the same vectors batched and one at a time', async () => {
    const texts = generateSentences()
      .filter((_, i) => i % 4 === 0)
      .slice(0, 48);
    const small = useLiteEmbedder({ modelPath: MODEL_DIR, batchSize: 5, device: 'wasm' });
    const batched = await small.embed(texts);
    const single: Float32Array[] = [];
    for (const text of texts) single.push(...(await embedder.embed([text])));
    let worst = 1;
    batched.forEach((v, i) => {
      worst = Math.min(worst, cosine(v, single[i] as Float32Array));
    });
    expect(worst).toBeGreaterThan(0.99999);
    await small.dispose();
  });

  it("its 'basic' session gives the vectors a fully optimised ('all') session gives", async () => {
    // The same int8 file through onnxruntime-web at 'all' (what the embedder used before).
    const ort = await import('onnxruntime-web');
    const model = await readFile(join(MODEL_DIR, 'onnx', 'model_quantized.onnx'));
    const full = await ort.InferenceSession.create(new Uint8Array(model), {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    const tokenizer = createUseLiteTokenizer(
      JSON.parse(await readFile(join(MODEL_DIR, 'vocab.json'), 'utf8')) as UseLiteVocabEntry[],
    );
    const texts = generateSentences()
      .filter((_, i) => i % 7 === 0)
      .slice(0, 24);
    const ours = await embedder.embed(texts);
    let worst = 1;
    let maxDiff = 0;
    for (const [i, text] of texts.entries()) {
      const ids = tokenizer.encode(text).slice(0, 128);
      const feeds = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), [1, ids.length]),
      };
      const expected = (await full.run(feeds)).sentence_embedding?.data as Float32Array;
      const got = ours[i] as Float32Array;
      worst = Math.min(worst, cosine(got, expected));
      for (let j = 0; j < got.length; j++)
        maxDiff = Math.max(maxDiff, Math.abs((got[j] as number) - (expected[j] as number)));
    }
    await full.release();
    expect(worst).toBeGreaterThan(0.999999);
    expect(maxDiff).toBeLessThan(1e-5);
  });

  it('aborts before loading and between batches', async () => {
    const reason = new Error('stop');
    await expect(embedder.embed(['x'], { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);

    const controller = new AbortController();
    const seen: EmbedProgress[] = [];
    const abortable = useLiteEmbedder({
      modelPath: MODEL_DIR,
      batchSize: 4,
      onProgress: (p) => {
        seen.push(p);
        if (p.phase === 'corpus') controller.abort(reason); // after the first batch
      },
    });
    const texts = generateSentences().slice(0, 20);
    await expect(abortable.embed(texts, { signal: controller.signal })).rejects.toBe(reason);
    expect(seen.filter((p) => p.phase === 'corpus')).toEqual([{ phase: 'corpus', done: 4, total: 20 }]);
    // The embedder stays usable after an aborted call.
    await expect(abortable.embed(['still works'])).resolves.toHaveLength(1);
    await abortable.dispose();
  });

  it('reports load progress in bytes and uses a custom loader', async () => {
    const urls: string[] = [];
    const seen: EmbedProgress[] = [];
    const custom = useLiteEmbedder({
      modelPath: pathToFileURL(MODEL_DIR),
      dtype: 'fp32',
      device: 'wasm',
      onProgress: (p) => seen.push(p),
      fetch: async (url) => {
        urls.push(url);
        const bytes = await readFile(new URL(url));
        return new Response(bytes, { headers: { 'content-length': String(bytes.byteLength) } });
      },
    });
    const backend = await custom.load();
    expect(backend.fallbackReason).toBeUndefined(); // 'wasm' was asked for explicitly
    expect(urls.map((u) => u.slice(u.indexOf('use-lite/')))).toEqual([
      'use-lite/vocab.json',
      'use-lite/onnx/model.onnx',
    ]);
    const loads = seen.filter((p) => p.phase === 'load');
    expect(loads.length).toBeGreaterThan(0);
    expect(loads.at(-1)).toEqual({ phase: 'load', done: backend.modelBytes, total: backend.modelBytes });
    await custom.dispose();
  });

  it('serialises concurrent calls and reloads after dispose', async () => {
    const own = useLiteEmbedder({ modelPath: MODEL_DIR });
    const [a, b] = await Promise.all([own.embed(['first call']), own.embed(['second call', 'third'])]);
    expect(a).toHaveLength(1);
    expect(b).toHaveLength(2);
    await own.dispose();
    expect(own.backend).toBeUndefined();
    await expect(own.embed(['again'])).resolves.toHaveLength(1);
    await own.dispose();
  });

  it('fails clearly: missing folder, explicit WebGPU in Node', async () => {
    await expect(useLiteEmbedder({ modelPath: '/nonexistent/use-lite' }).embed(['x'])).rejects.toThrow();
    await expect(useLiteEmbedder({ modelPath: MODEL_DIR, device: 'webgpu' }).load()).rejects.toThrow();
  });

  it('resolves model files under URLs and paths', () => {
    expect(resolveModelFile('https://example.test/models/use-lite', 'tokenizer.json')).toBe(
      'https://example.test/models/use-lite/tokenizer.json',
    );
    expect(resolveModelFile(new URL('https://example.test/m/'), 'onnx/model.onnx')).toBe(
      'https://example.test/m/onnx/model.onnx',
    );
    expect(resolveModelFile('/srv/models/use-lite/', 'config.json')).toBe('/srv/models/use-lite/config.json');
    expect(resolveModelFile('models/use-lite', 'config.json')).toBe('models/use-lite/config.json');
    expect(resolveModelFile('C:\\models\\use-lite', 'config.json')).toBe('C:\\models\\use-lite/config.json');
  });
});
