#!/usr/bin/env node
// `npm run bench`: speed figures on this machine. Selection on the 1,857-tool bfcl registry,
// and the loop's own per-turn overhead (everything but the model and the tools).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadCases, loadTools, memoEmbedder, percentile } from '../dist/cli.js';
import {
  BareLoop,
  Bm25Selector,
  EmbeddingSelector,
  HybridSelector,
  KeywordSelector,
  memoryVectorCache,
  ToolRegistry,
} from '../dist/index.js';
import { useLiteEmbedder } from '../dist/use-lite.js';
import { deriveHybridState, encodeVectorsFile, HYBRID_STATE_TAG, withVectorsSections } from '../dist/vectors.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(import.meta.dirname, '../../shared/eval') },
    only: { type: 'string' },
    'corpus-texts': { type: 'string', default: '600' },
    'corpus-rounds': { type: 'string', default: '3' },
    'learn-sets': { type: 'string', default: 'metatool,bfcl' },
    'learn-runs': { type: 'string', default: '5' },
    // Another built checkout of loopctl (a folder holding its dist/, e.g. the main of before a
    // change): the hybrid part also times its HybridSelector, in this process, on the same
    // embedder, corpus cache and queries, in alternating rounds, and reports the p50 ratio.
    baseline: { type: 'string' },
  },
});
// The machine is shared: every figure carries the 1-minute load average it was taken under.
const load = () => Math.round(loadavg()[0] * 100) / 100;
const only = values.only?.split(',');
const want = (name) => !only || only.includes(name);
const results = [];
const report = (name, samples, extra = {}) => {
  const row = {
    name,
    n: samples.length,
    p50Ms: percentile(samples, 0.5),
    p95Ms: percentile(samples, 0.95),
    ...extra,
    load: load(),
  };
  results.push(row);
  console.log(
    `${name.padEnd(48)} p50 ${row.p50Ms.toFixed(4)} ms  p95 ${row.p95Ms.toFixed(4)} ms  (n=${row.n})${Object.keys(extra).length ? `  ${JSON.stringify(extra)}` : ''}`,
  );
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
if (want('keyword')) report('KeywordSelector ranked (n=8).select, bfcl', timeSelect(new KeywordSelector().withTopK(8)));
if (want('bm25')) report('Bm25Selector(k=8).select, bfcl', timeSelect(new Bm25Selector({ topK: 8 })));

if (want('loop')) {
  // An in-process client that answers at once: one tool call on odd turns, text on even
  // ones, so the measured time is the loop's own work per turn.
  const registry = new ToolRegistry();
  registry.registerMany(tools.slice(0, 1000).map((schema) => ({ schema, handler: () => 'ok' })));
  const callable =
    tools.slice(0, 1000).find((t) => Object.keys(t.parameters?.properties ?? {}).length === 0) ?? tools[0];
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
  // The offline default model with Node's default runtime ('auto': onnxruntime-node when
  // installed, as it is here), one thread.
  const modelPath = resolve(import.meta.dirname, '../models/use-lite');
  const t0 = performance.now();
  const embedder = useLiteEmbedder({ modelPath, numThreads: 1 });
  const backend = await embedder.load();
  const loadMs = performance.now() - t0;
  console.log(
    `use-lite load: ${loadMs.toFixed(0)} ms (${backend.device}, ${backend.dtype}, ${backend.numThreads} thread(s), ${(backend.modelBytes / 1e6).toFixed(1)} MB` +
      `${backend.fallbackReason ? `; ${backend.fallbackReason}` : ''})`,
  );
  results.push({ name: 'use-lite load', ms: loadMs, backend });

  const embedSamples = [];
  for (let i = 0; i < 300; i++) {
    const t = performance.now();
    await embedder.embed([queries[i % queries.length]]);
    if (i >= 20) embedSamples.push(performance.now() - t);
  }
  report(`query embed (1 text, bfcl queries, ${backend.device})`, embedSamples);

  const cache = memoryVectorCache();
  // Records what the first turn embeds, so the vectors-file figures reuse it (no second pass).
  const recorded = new Map();
  const recording = {
    id: embedder.id,
    dimensions: embedder.dimensions,
    async embed(texts, options) {
      const vectors = await embedder.embed(texts, options);
      texts.forEach((text, i) => {
        recorded.set(text, vectors[i]);
      });
      return vectors;
    },
  };
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
    const { samples, warmupMs } = await timeAsync(new EmbeddingSelector(recording, { cache }));
    report('EmbeddingSelector.select, bfcl, warm cache', samples, {
      firstTurnMs: Math.round(warmupMs),
      loadMs: Math.round(loadMs),
    });
    console.log(
      `first turn, 1,857 tools, no vectors file (${backend.device}, 1 thread): ${(warmupMs / 1000).toFixed(2)} s ` +
        `(${(tools.length / (warmupMs / 1000)).toFixed(1)} tools/s; load ${load()})`,
    );
    results.push({ name: 'first turn, bfcl, no vectors file', device: backend.device, ms: warmupMs, load: load() });

    // The same corpus as a vectors file, then a fresh selector (empty cache) seeded from it.
    const entries = [...recorded]
      .filter(([text]) => !queries.includes(text))
      .map(([text, vector]) => ({ text, vector }));
    const sizes = {};
    for (const precision of ['f16', 'i8', 'f32']) {
      const bytes = encodeVectorsFile({ embedderId: embedder.id, dimensions: embedder.dimensions, precision }, entries);
      sizes[precision] = {
        bytes: bytes.byteLength,
        per1000Tools: Math.round((bytes.byteLength / entries.length) * 1000),
      };
    }
    console.log(
      `vectors file per 1,000 tools: f16 ${(sizes.f16.per1000Tools / 1024).toFixed(0)} KB, i8 ${(sizes.i8.per1000Tools / 1024).toFixed(0)} KB, f32 ${(sizes.f32.per1000Tools / 1024).toFixed(0)} KB (${entries.length} texts)`,
    );
    results.push({ name: 'vectors file size', texts: entries.length, sizes });
    const file = encodeVectorsFile({ embedderId: embedder.id, dimensions: embedder.dimensions }, entries);
    const seededTimes = [];
    for (let i = 0; i < 5; i++) {
      const seeded = new EmbeddingSelector(embedder, { cache: memoryVectorCache(), vectors: file });
      const t = performance.now();
      await seeded.select({ turn: 1, latestUserMessage: queries[i], conversation: [] }, [...tools], {
        signal: new AbortController().signal,
      });
      seededTimes.push(performance.now() - t);
      if (seeded.stats.corpusEmbeds !== 0)
        throw new Error(`seeded first turn embedded ${seeded.stats.corpusEmbeds} tool texts`);
    }
    report('first turn, bfcl 1,857 tools, with a vectors file (f16)', seededTimes, { modelLoadMs: Math.round(loadMs) });

    // The hybrid, from the same vectors plus its derived state (what `loopctl vectors` writes):
    // a fresh selector and a fresh copy of the list each time, so nothing derived is shared.
    const state = await deriveHybridState(
      new HybridSelector(embedder, { cache: memoryVectorCache(), vectors: file }),
      tools,
    );
    const hybridFile = withVectorsSections(file, { [HYBRID_STATE_TAG]: state });
    console.log(`hybrid derived state: ${(state.byteLength / 1024).toFixed(0)} KB`);
    for (const [label, bytes] of [
      ['with a vectors file and its derived state (f16)', hybridFile],
      ['with a vectors file, no derived state (f16)', file],
    ]) {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const seeded = new HybridSelector(embedder, { cache: memoryVectorCache(), vectors: bytes });
        const t = performance.now();
        await seeded.select({ turn: 1, latestUserMessage: queries[i], conversation: [] }, [...tools], {
          signal: new AbortController().signal,
        });
        times.push(performance.now() - t);
        if (bytes === hybridFile && seeded.derivedStats.inferred !== 0)
          throw new Error(`seeded hybrid inferred its links: ${JSON.stringify(seeded.derivedStats)}`);
      }
      report(`first turn, hybrid, bfcl, ${label}`, times);
    }

    // The same, cold: a fresh process per sample (model load, then the first select), so JIT
    // warm-up and first-use imports are in the figure.
    const dir = mkdtempSync(join(tmpdir(), 'loopctl-bench-'));
    const path = join(dir, 'bfcl.lcv');
    writeFileSync(path, hybridFile);
    for (const selector of ['embedding', 'hybrid']) {
      const cold = [];
      for (let i = 0; i < 5; i++) {
        const out = execFileSync(
          process.execPath,
          [
            join(import.meta.dirname, 'bench-first-turn.mjs'),
            '--vectors',
            path,
            '--selector',
            selector,
            '--data',
            values.data,
          ],
          {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'inherit'],
          },
        );
        cold.push(JSON.parse(out.trim().split('\n').at(-1)));
      }
      report(
        `first turn, fresh process, ${selector}, vectors file`,
        cold.map((row) => row.firstSelectMs),
        {
          device: cold[0].device,
          modelLoadMsP50: percentile(
            cold.map((row) => row.modelLoadMs),
            0.5,
          ),
        },
      );
    }
    rmSync(dir, { recursive: true, force: true });
  }
  if (want('hybrid')) {
    // Side by side: the shipped hybrid, and the same without whole-task selection (no tool
    // links, no clause slots, no action resolution), on the same warm corpus, alternating.
    const whole = new HybridSelector(embedder, { cache });
    const plain = new HybridSelector(embedder, { cache, links: false, multiIntent: { clauseSlots: false } });
    const baseline = values.baseline
      ? new (await import(pathToFileURL(join(resolve(values.baseline), 'dist/index.js')).href)).HybridSelector(
          embedder,
          { cache },
        )
      : undefined;
    const first = await timeAsync(whole, 0);
    await timeAsync(plain, 0);
    if (baseline) await timeAsync(baseline, 0);
    const rounds = { whole: [], plain: [], baseline: [] };
    for (let round = 0; round < 3; round++) {
      rounds.whole.push(...(await timeAsync(whole, 100)).samples);
      rounds.plain.push(...(await timeAsync(plain, 100)).samples);
      if (baseline) rounds.baseline.push(...(await timeAsync(baseline, 100)).samples);
    }
    report('HybridSelector.select, bfcl, warm cache', rounds.whole, { firstTurnMs: Math.round(first.warmupMs) });
    report('HybridSelector.select, bfcl, warm cache, whole-task off', rounds.plain);
    if (baseline) {
      report(`HybridSelector.select, bfcl, warm cache, baseline ${values.baseline}`, rounds.baseline);
      const ratio = percentile(rounds.whole, 0.5) / percentile(rounds.baseline, 0.5);
      console.log(`hybrid p50 / baseline's: ${ratio.toFixed(2)}× (same process, same embedder, alternating rounds)`);
      results.push({ name: 'hybrid p50 / baseline hybrid p50', ratio, baseline: values.baseline, load: load() });
    }
    const linkTimes = [];
    for (let i = 0; i < 5; i++) {
      const fresh = new HybridSelector(embedder, { cache });
      await fresh.dense.toolVectors(tools);
      const t = performance.now();
      const { links } = await fresh.toolLinks(tools);
      linkTimes.push(performance.now() - t);
      if (i === 0) console.log(`tool links inferred for bfcl: ${links.length}`);
    }
    report('tool links, inferred once per registry list, bfcl 1,857 tools', linkTimes);
  }
}

// Starts a zero-delay timer chain; the returned stop() gives the longest gap between its ticks:
// how long the code running meanwhile held the thread at a time.
function holdProbe() {
  let last = performance.now();
  let longest = 0;
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (ticking) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  return () => {
    ticking = false;
    return Math.max(longest, performance.now() - last);
  };
}

if (want('learn')) {
  // selector.learn() on each set's dev split (prompt → expected tools), the prompts' vectors
  // embedded once beforehand (a memoising embedder), so the figure is learning itself: the
  // example store and the query projection's fit with its held-out check. Also the longest
  // stretch learn held the thread (a zero-delay timer chain runs whenever it lets go): what a
  // page's input waits at most while the fit runs.
  const embedder = memoEmbedder(
    useLiteEmbedder({ modelPath: resolve(import.meta.dirname, '../models/use-lite'), numThreads: 1 }),
  );
  for (const set of values['learn-sets'].split(',')) {
    const setTools = loadTools(join(values.data, set, 'tools.json'));
    const examples = loadCases(join(values.data, set, 'cases.jsonl'), 'dev').map((c) => ({
      query: c.query,
      tools: c.expected,
    }));
    const cache = memoryVectorCache();
    const fresh = async () => {
      const selector = new HybridSelector(embedder, { cache, learnedCache: memoryVectorCache() });
      await selector.select({ turn: 1, latestUserMessage: examples[0].query, conversation: [] }, setTools, {
        signal: new AbortController().signal,
      });
      return selector;
    };
    await (await fresh()).learn(examples, { tools: setTools }); // embeds corpus and prompts once
    const samples = [];
    // CPU time too: on a shared machine wall time mostly measures the other processes.
    const cpu = [];
    const held = [];
    let summary;
    // What the loop's recorder does after each successful turn: one more example, refitted in the background.
    const refitHeld = [];
    const turn = { query: 'a prompt none of the examples had', tools: [setTools[0].name] };
    for (let i = 0; i < Number(values['learn-runs']); i++) {
      const selector = await fresh();
      let stop = holdProbe();
      const t = performance.now();
      const c = process.cpuUsage();
      summary = await selector.learn(examples, { tools: setTools });
      const used = process.cpuUsage(c);
      samples.push(performance.now() - t);
      cpu.push((used.user + used.system) / 1000);
      held.push(stop());
      stop = holdProbe();
      await selector.learn([turn], { tools: setTools, fit: 'background' });
      while ((selector.learnedProjection?.examples ?? 0) <= summary.total)
        await new Promise((resolve) => setTimeout(resolve, 1));
      refitHeld.push(stop());
    }
    const best = Math.min(...samples);
    const median = percentile(samples, 0.5);
    const cpuBest = Math.min(...cpu);
    const heldMedian = percentile(held, 0.5);
    const refitHeldMedian = percentile(refitHeld, 0.5);
    console.log(
      `learn ${summary.total} examples (${set} dev split): ${best.toFixed(0)} ms best, ${median.toFixed(0)} ms median of ${samples.length}; ` +
        `CPU ${cpuBest.toFixed(0)} ms best; thread held at most ${heldMedian.toFixed(0)} ms at a time (median), ` +
        `${refitHeldMedian.toFixed(0)} ms by a recorded turn's background refit ` +
        `(embedding excluded; projection ${summary.projection?.applied ? `applied at ${summary.projection.blend}` : 'off'}; load ${load()})`,
    );
    results.push({
      name: `learn ${summary.total} examples (${set} dev split)`,
      bestMs: best,
      medianMs: median,
      cpuBestMs: cpuBest,
      longestHeldMs: heldMedian,
      refitLongestHeldMs: refitHeldMedian,
      n: samples.length,
      load: load(),
    });
  }
}

if (want('corpus')) {
  // Corpus rate per runtime, dtype and thread count, each in its own process (onnxruntime-web
  // fixes its WASM threads at first use). WASM stays measured beside native: it is what
  // browsers, Deno and Workers run.
  for (const device of ['native', 'wasm']) {
    for (const [threads, dtype] of [
      [1, 'int8'],
      [2, 'int8'],
      [1, 'fp32'],
      [2, 'fp32'],
    ]) {
      const out = execFileSync(
        process.execPath,
        [
          join(import.meta.dirname, 'bench-corpus.mjs'),
          ...['--device', device, '--threads', String(threads), '--dtype', dtype],
          ...['--texts', values['corpus-texts'], '--rounds', values['corpus-rounds'], '--data', values.data],
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const row = JSON.parse(out.trim().split('\n').at(-1));
      console.log(
        `corpus rate, ${device.padEnd(6)} ${dtype}, ${threads} thread(s): ${row.toolsPerSecond} tools/s, ${row.gflops} GFLOP/s ` +
          `(plain MatMul ${row.matmulGflops} GFLOP/s; ${row.toolsPerCpuSecond} tools per CPU-second; best of ${row.roundSeconds.length}; ` +
          `${row.texts} bfcl texts, ${row.tokens} tokens; load ${row.loadavg[0]})`,
      );
      results.push({ name: `corpus rate, ${device}, ${dtype}, ${threads} thread(s)`, ...row });
    }
  }
}

export { results };
