#!/usr/bin/env node
// `npm run bench`: speed figures on this machine. Selection on the 1,857-tool bfcl registry,
// and the loop's own per-turn overhead (everything but the model and the tools).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCases, loadTools, percentile } from '../dist/cli.js';
import { BareLoop, Bm25Selector, EmbeddingSelector, HybridSelector, KeywordSelector, ToolRegistry, memoryVectorCache } from '../dist/index.js';
import { useLiteEmbedder } from '../dist/transformers.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(import.meta.dirname, '../../shared/eval') },
    only: { type: 'string' },
  },
});
const only = values.only?.split(',');
const want = (name) => !only || only.includes(name);
const results = [];
const report = (name, samples, extra = {}) => {
  const row = { name, n: samples.length, p50Ms: percentile(samples, 0.5), p95Ms: percentile(samples, 0.95), ...extra };
  results.push(row);
  console.log(`${name.padEnd(48)} p50 ${row.p50Ms.toFixed(4)} ms  p95 ${row.p95Ms.toFixed(4)} ms  (n=${row.n})${Object.keys(extra).length ? '  ' + JSON.stringify(extra) : ''}`);
};

const bfclDir = join(values.data, 'bfcl');
if (!existsSync(bfclDir)) throw new Error(`no bfcl set at ${bfclDir}`);
const tools = loadTools(join(bfclDir, 'tools.json'));
const queries = loadCases(join(bfclDir, 'cases.jsonl'), 'all').map((c) => c.query);

function timeSelect(selector, n = 2000) {
  const ctx = (q) => ({ turn: 1, latestUserMessage: q, conversation: [{ role: 'user', content: q }] });
  for (let i = 0; i < 200; i++) selector.select(ctx(queries[i % queries.length]), tools);
  const samples = [];
  for (let i = 0; i < n; i++) {
    const c = ctx(queries[i % queries.length]);
    const t = performance.now();
    selector.select(c, tools);
    samples.push(performance.now() - t);
  }
  return samples;
}

if (want('keyword')) report('KeywordSelector.select, bfcl 1,857 tools', timeSelect(new KeywordSelector()));
if (want('keyword')) report('KeywordSelector ranked (n=8).select, bfcl', timeSelect(new KeywordSelector().withMaxTools(8)));
if (want('bm25')) report('Bm25Selector(k=8).select, bfcl', timeSelect(new Bm25Selector({ topK: 8 })));

if (want('loop')) {
  // An in-process client that answers at once: one tool call on odd turns, text on even
  // ones, so the measured time is the loop's own work per turn.
  const registry = new ToolRegistry();
  registry.registerMany(tools.slice(0, 1000).map((schema) => ({ schema, handler: () => 'ok' })));
  const callable = tools.slice(0, 1000).find((t) => Object.keys(t.parameters?.properties ?? {}).length === 0) ?? tools[0];
  let step = 0;
  const client = {
    provider: 'openai',
    model: 'bench',
    buildBody: (r) => JSON.stringify(r),
    async *stream() {
      step += 1;
      if (step % 2 === 1) yield { type: 'tool_call', call: { id: `c${step}`, name: callable.name, arguments: '{}' } };
      else yield { type: 'text', delta: 'done' };
      yield { type: 'usage', usage: { inputTokens: 100, outputTokens: 5 } };
      yield { type: 'finish', reason: step % 2 === 1 ? 'tool_calls' : 'stop' };
    },
    async complete() {
      throw new Error('unused');
    },
  };
  // Skip validation cost of arbitrary schemas: the handler's tool has no required args.
  const loop = new BareLoop({ client, registry }).withToolSelector(new KeywordSelector());
  const samples = [];
  for (let i = 0; i < 600; i++) {
    const q = queries[i % queries.length];
    const t = performance.now();
    const result = await loop.run(q).result();
    const elapsed = performance.now() - t;
    if (i >= 100) samples.push(elapsed / result.turns);
  }
  report('BareLoop overhead per turn, 1,000 tools, keyword', samples);
}

if (want('embedding') || want('hybrid')) {
  // The offline default model, single-threaded WASM (onnxruntime-web) in Node.
  const modelPath = resolve(import.meta.dirname, '../models/use-lite');
  const t0 = performance.now();
  const embedder = useLiteEmbedder({ modelPath, numThreads: 1 });
  const backend = await embedder.load();
  const loadMs = performance.now() - t0;
  console.log(`use-lite load: ${loadMs.toFixed(0)} ms (${backend.device}, ${backend.dtype}, ${(backend.modelBytes / 1e6).toFixed(1)} MB)`);
  results.push({ name: 'use-lite load', ms: loadMs, backend });

  const embedSamples = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await embedder.embed([queries[i % queries.length]]);
    if (i >= 20) embedSamples.push(performance.now() - t);
  }
  report('query embed (1 text, bfcl queries)', embedSamples);

  // Corpus rate: embed a 400-tool slice of the registry from scratch.
  const { toolText } = await import('../dist/index.js');
  const slice = tools.slice(0, 400).map((t) => toolText(t.name, t.description));
  const tc = performance.now();
  await embedder.embed(slice);
  const rate = slice.length / ((performance.now() - tc) / 1000);
  console.log(`corpus embedding rate: ${rate.toFixed(1)} tools/s (bfcl tool texts)`);
  results.push({ name: 'corpus embedding rate', toolsPerSecond: rate });

  const cache = memoryVectorCache();
  const timeAsync = async (selector, n = 300) => {
    const ctx = (q) => ({ turn: 1, latestUserMessage: q, conversation: [{ role: 'user', content: q }] });
    const signal = new AbortController().signal;
    const tw = performance.now();
    await selector.select(ctx(queries[0]), tools, { signal }); // warm: corpus embedded (or read from cache)
    const warmupMs = performance.now() - tw;
    const samples = [];
    for (let i = 1; i <= n; i++) {
      const c = ctx(queries[i % queries.length]);
      const t = performance.now();
      await selector.select(c, tools, { signal });
      samples.push(performance.now() - t);
    }
    return { samples, warmupMs };
  };
  if (want('embedding')) {
    const { samples, warmupMs } = await timeAsync(new EmbeddingSelector(embedder, { cache }));
    report('EmbeddingSelector.select, bfcl, warm cache', samples, { firstTurnMs: Math.round(warmupMs) });
  }
  if (want('hybrid')) {
    const { samples, warmupMs } = await timeAsync(new HybridSelector(embedder, { cache }));
    report('HybridSelector.select, bfcl, warm cache', samples, { firstTurnMs: Math.round(warmupMs) });
  }
}

export { results };
