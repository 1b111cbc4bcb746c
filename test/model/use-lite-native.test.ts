/**
 * useLiteEmbedder on onnxruntime-node (`device: 'native'`, and what 'auto' picks in Node),
 * against onnxruntime-web WASM on the same model files: backend choice, intra-op threads, the
 * same vectors (cosine to WASM, to the TF.js reference and to the golden vectors of
 * ../shared/notes/use-lite.md §7), vectors files and caches shared across the two runtimes,
 * and 'auto' falling back to WASM with one warning when onnxruntime-node is missing or broken
 * (in a child process whose node_modules really lacks it).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNativeSession, importOrtNode } from '../../src/adapters/ort-native.js';
import { type UseLiteEmbedder, useLiteEmbedder } from '../../src/adapters/use-lite.js';
import { memoryVectorCache } from '../../src/embed/vector-cache.js';
import { buildVectorsFile } from '../../src/embed/vectors-build.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { generateSentences } from './use-lite-sentences.js';
import { cosine, ensureModel, loadReference, MODEL_DIR } from './use-lite-setup.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tools = JSON.parse(readFileSync(join(root, 'test/fixtures/tools.json'), 'utf8')) as ToolSchema[];
const texts = generateSentences();
const noSignal = { signal: new AbortController().signal };
const ctx = (q: string) => ({ turn: 1, latestUserMessage: q, conversation: [{ role: 'user' as const, content: q }] });

/** ../shared/notes/use-lite.md §7: float64 re-implementation, checked against TF.js to 6e-7. */
const GOLDEN = [
  { text: 'The quick brown fox jumps over the lazy dog.', head: [-0.013534, -0.042564, 0.036843, -0.005918] },
  { text: 'How old are you?', head: [0.038685, 0.050444, -0.045524, 0.056079] },
];

const made: UseLiteEmbedder[] = [];
const embedder = (options: Parameters<typeof useLiteEmbedder>[0]) => {
  const warnings: string[] = [];
  const e = useLiteEmbedder({ onWarning: (m) => warnings.push(m), ...options });
  made.push(e);
  return Object.assign(e, { warnings });
};

beforeAll(async () => {
  await ensureModel();
}, 120_000);
afterAll(async () => {
  for (const e of made) await e.dispose();
});

describe('useLiteEmbedder on onnxruntime-node', () => {
  it("'auto' in Node runs native, one thread by default, with no warning", async () => {
    const auto = embedder({ modelPath: MODEL_DIR });
    const backend = await auto.load();
    expect(backend).toMatchObject({ device: 'native', dtype: 'int8', numThreads: 1 });
    expect(backend.fallbackReason).toBeUndefined();
    expect(auto.warnings).toEqual([]);
    // The same id as on WASM: vectors files and caches do not care which runtime made them.
    expect(auto.id).toBe(useLiteEmbedder({ modelPath: MODEL_DIR, device: 'wasm' }).id);
    expect(auto.id).toBe('use-lite/int8/mean/tok2');
  });

  it.skipIf(process.platform !== 'linux')(
    'each session runs on a worker thread of its own; numThreads 3 starts 2 more; all released on dispose',
    async () => {
      const threads = () => readdirSync('/proc/self/task').length;
      const warm = embedder({ modelPath: MODEL_DIR, device: 'native', numThreads: 1 });
      await warm.embed(['warm up the runtime']);
      const before = threads();
      const one = embedder({ modelPath: MODEL_DIR, device: 'native', numThreads: 1 });
      await one.embed(['one thread']);
      const session = threads() - before; // the worker the session computes on
      expect(session).toBeGreaterThanOrEqual(1);
      const three = embedder({ modelPath: MODEL_DIR, device: 'native', numThreads: 3 });
      expect((await three.load()).numThreads).toBe(3);
      await three.embed(['three threads']);
      expect(threads()).toBe(before + 2 * session + 2); // the worker's own thread is the third
      await three.dispose();
      expect(threads()).toBe(before + session);
      await one.dispose();
      expect(threads()).toBe(before);
      await warm.dispose();
    },
  );

  it('a model call does not hold the event loop: timers keep firing while the worker computes', async () => {
    const ort = await importOrtNode();
    const model = new Uint8Array(readFileSync(join(MODEL_DIR, 'onnx/model_quantized.onnx')));
    const width = 128; // one full-length text per call, as the embedder sends on a CPU
    const ids = new BigInt64Array(width).map((_, i) => BigInt(100 + (i % 500)));
    const feeds = () => ({
      input_ids: new ort.Tensor('int64', ids, [1, width]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(width).fill(1n), [1, width]),
    });
    const ticksDuring = async (session: Awaited<ReturnType<typeof createNativeSession>>, calls: number) => {
      let ticks = 0;
      let running = true;
      const tick = () => {
        ticks += 1;
        if (running) setTimeout(tick, 0);
      };
      setTimeout(tick, 0);
      const vectors: Float32Array[] = [];
      for (let i = 0; i < calls; i++) {
        const out = await session.run(feeds());
        vectors.push((await out.sentence_embedding?.getData()) as Float32Array);
      }
      running = false;
      return { ticks, vectors };
    };
    const calls = 12;
    const onThread = await createNativeSession(ort, model, 1, false);
    const offThread = await createNativeSession(ort, model, 1);
    const held = await ticksDuring(onThread, calls);
    const free = await ticksDuring(offThread, calls);
    await Promise.all([onThread.release(), offThread.release()]);
    // On the calling thread a timer fires only between calls; on the worker, all through them.
    expect(held.ticks).toBeLessThanOrEqual(2 * calls + 2);
    expect(free.ticks).toBeGreaterThan(4 * calls);
    expect(Array.from(free.vectors[0] as Float32Array)).toEqual(Array.from(held.vectors[0] as Float32Array));
    await expect(offThread.run(feeds())).rejects.toThrow(/released/);
  });

  it.each(['int8', 'fp32'] as const)(
    '%s: the same vectors as WASM on real texts (cosine >= 0.999; measured 1 - 1e-11)',
    async (dtype) => {
      const native = embedder({ modelPath: MODEL_DIR, dtype, device: 'native' });
      const wasm = embedder({ modelPath: MODEL_DIR, dtype, device: 'wasm' });
      const corpus = [...texts, ...tools.map((t) => `${t.name} ${t.description}`)];
      const [a, b] = [await native.embed(corpus), await wasm.embed(corpus)];
      expect((await native.load()).device).toBe('native');
      expect((await wasm.load()).device).toBe('wasm');
      const worst = Math.min(...a.map((v, i) => cosine(v, b[i] as Float32Array)));
      console.info(
        `${dtype} native vs WASM over ${corpus.length} texts: 1 - min cosine = ${(1 - worst).toExponential(2)}`,
      );
      expect(worst).toBeGreaterThanOrEqual(0.999);
      expect(worst).toBeGreaterThanOrEqual(0.999999); // both fold int8 to the same fp32 weights
      expect(native.id).toBe(wasm.id);
    },
  );

  it('fp32 reproduces the golden vectors (§7) to 5e-6, int8 to 2e-3, and both stay >= 0.999 to TF.js', async () => {
    const fp32 = embedder({ modelPath: MODEL_DIR, dtype: 'fp32', device: 'native' });
    const int8 = embedder({ modelPath: MODEL_DIR, dtype: 'int8', device: 'native' });
    const golden = GOLDEN.map((g) => g.text);
    const [exact, quantised] = [await fp32.embed(golden), await int8.embed(golden)];
    GOLDEN.forEach((g, i) => {
      g.head.forEach((value, j) => {
        expect((exact[i] as Float32Array)[j]).toBeCloseTo(value, 5);
        expect(Math.abs(((quantised[i] as Float32Array)[j] as number) - value)).toBeLessThan(2e-3);
      });
    });

    const reference = await loadReference();
    const sample = texts.filter((t) => t.length > 0).slice(0, 64);
    const expected = await reference.embed(sample);
    for (const [name, e] of [
      ['fp32', fp32],
      ['int8', int8],
    ] as const) {
      const got = await e.embed(sample);
      const worst = Math.min(...got.map((v, i) => cosine(v, expected[i] as number[])));
      console.info(
        `${name} native vs TF.js over ${sample.length} texts: min cosine ${worst.toFixed(6)} (1 - min = ${(1 - worst).toExponential(2)})`,
      );
      expect(worst).toBeGreaterThanOrEqual(0.999);
    }
  }, 120_000);

  it('a vectors file built on one runtime seeds a selector on the other: no tool text embedded, same ranking', async () => {
    const native = embedder({ modelPath: MODEL_DIR, device: 'native' });
    const wasm = embedder({ modelPath: MODEL_DIR, device: 'wasm' });
    const prompt = 'What is the weather forecast for Paris?';
    for (const [builder, user] of [
      [native, wasm],
      [wasm, native],
    ] as const) {
      const file = await buildVectorsFile(builder, tools);
      const seeded = new EmbeddingSelector(user, { topK: 3, cache: memoryVectorCache(), vectors: file });
      const output = await seeded.select(ctx(prompt), tools, noSignal);
      expect(output.warnings ?? []).toEqual([]);
      expect(seeded.stats).toMatchObject({ corpusEmbeds: 0, seededTexts: tools.length });
      // Ranked exactly as the user's own runtime would, having embedded everything itself.
      const own = new EmbeddingSelector(user, { topK: 3, cache: memoryVectorCache() });
      const ownOutput = await own.select(ctx(prompt), tools, noSignal);
      expect(own.stats.corpusEmbeds).toBe(tools.length);
      expect(applySelection(output, tools).names).toEqual(applySelection(ownOutput, tools).names);
    }
  });

  it('a vector cache filled by the native runtime serves the WASM one (same id, same keys)', async () => {
    const cache = memoryVectorCache();
    const first = new EmbeddingSelector(embedder({ modelPath: MODEL_DIR, device: 'native' }), { topK: 3, cache });
    await first.select(ctx('send an email'), tools, noSignal);
    expect(first.stats.corpusEmbeds).toBe(tools.length);
    const second = new EmbeddingSelector(embedder({ modelPath: MODEL_DIR, device: 'wasm' }), { topK: 3, cache });
    await second.select(ctx('send an email'), tools, noSignal);
    expect(second.stats.corpusEmbeds).toBe(0);
  });
});

describe("'auto' without a working onnxruntime-node (a real install that lacks it)", () => {
  const work = mkdtempSync(join(tmpdir(), 'loopctl-native-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /**
   * A project outside the repository (so Node cannot find the repository's node_modules):
   * loopctl's dist and onnxruntime-web, plus onnxruntime-node as given.
   */
  function project(name: string, withNative: 'absent' | 'without-binary'): string {
    const dir = join(work, name);
    const modules = join(dir, 'node_modules');
    mkdirSync(join(modules, 'loopctl'), { recursive: true });
    cpSync(join(root, 'dist'), join(modules, 'loopctl/dist'), {
      recursive: true,
      filter: (src) => !src.includes(`${join(root, 'dist/types')}`),
    });
    writeFileSync(
      join(modules, 'loopctl/package.json'),
      JSON.stringify({ name: 'loopctl', type: 'module', exports: { './use-lite': './dist/use-lite.js' } }),
    );
    symlinkSync(join(root, 'node_modules/onnxruntime-web'), join(modules, 'onnxruntime-web'), 'dir');
    if (withNative === 'without-binary') {
      // The package as npm unpacks it on a platform it has no binary for.
      cpSync(join(root, 'node_modules/onnxruntime-node'), join(modules, 'onnxruntime-node'), {
        recursive: true,
        filter: (src) => !src.includes(join('onnxruntime-node', 'bin')),
      });
      symlinkSync(join(root, 'node_modules/onnxruntime-common'), join(modules, 'onnxruntime-common'), 'dir');
    }
    writeFileSync(
      join(dir, 'probe.mjs'),
      `import { useLiteEmbedder } from 'loopctl/use-lite';
const warnings = [];
const run = async (device) => {
  const e = useLiteEmbedder({ modelPath: ${JSON.stringify(MODEL_DIR)}, device, onWarning: (m) => warnings.push(m) });
  try {
    const [vector] = await e.embed([${JSON.stringify(GOLDEN[0]?.text)}]);
    return { backend: e.backend, vector: Array.from(vector) };
  } catch (error) {
    return { error: error.message };
  } finally {
    await e.dispose();
  }
};
const auto = await run('auto');
const autoWarnings = warnings.splice(0);
const wasm = await run('wasm');
const wasmWarnings = warnings.splice(0);
const native = await run('native');
console.log(JSON.stringify({ auto, autoWarnings, wasm, wasmWarnings, native }));
`,
    );
    return dir;
  }

  const probe = (dir: string) =>
    JSON.parse(
      execFileSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' }).trim().split('\n').at(-1) as string,
    );

  it.each([
    ['absent', /^onnxruntime-node is not installed \(ONNXRUNTIME_NODE_INSTALL=skip npm install onnxruntime-node\)$/],
    ['without-binary', /^onnxruntime-node failed to load: .*onnxruntime_binding\.node/],
  ] as const)(
    'onnxruntime-node %s: WASM with one warning and the same vectors; native is a clear error',
    async (state, reason) => {
      const result = probe(project(state, state));
      expect(result.auto.backend).toMatchObject({ device: 'wasm', dtype: 'int8', numThreads: 1 });
      expect(result.auto.backend.fallbackReason).toMatch(reason);
      expect(result.autoWarnings).toHaveLength(1);
      expect(result.autoWarnings[0]).toMatch(
        /^use-lite: onnxruntime-node .*; embedding on onnxruntime-web WASM instead/,
      );
      // Asking for WASM is not a fallback: no warning.
      expect(result.wasm.backend.device).toBe('wasm');
      expect(result.wasmWarnings).toEqual([]);
      // Asking for native where it cannot run fails, naming why.
      expect(result.native.error).toMatch(new RegExp(`^use-lite: ${reason.source.slice(1)}`));
      // The fallback's vector is the one the native runtime gives here.
      const [here] = await embedder({ modelPath: MODEL_DIR, device: 'native' }).embed([GOLDEN[0]?.text as string]);
      expect(cosine(result.auto.vector, here as Float32Array)).toBeGreaterThan(0.9999);
    },
    60_000,
  );
});
