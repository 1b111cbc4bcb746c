#!/usr/bin/env node
/**
 * Corpus rate and query latency of the base and the tuned encoder, side by side and
 * interleaved (the machine is shared, so each round runs both): tools per second over the
 * first --texts bfcl tool texts, and one-query embedding p50/p95 over --queries bfcl prompts,
 * int8, one thread, per runtime.
 *
 *   flock /tmp/loopctl-heavy.lock node scripts/train/bench-variants.mjs --model DIR [--devices native,wasm]
 *
 * DIR must hold both encoders (`loopctl model --variant base,tools`).
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCases, loadTools, percentile } from '../../dist/cli.js';
import { toolText } from '../../dist/selector-kit.js';
import { useLiteEmbedder } from '../../dist/use-lite.js';

const root = resolve(import.meta.dirname, '..', '..');
const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(root, '..', 'shared', 'eval') },
    model: { type: 'string' },
    devices: { type: 'string', default: 'native,wasm' },
    texts: { type: 'string', default: '600' },
    queries: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
  },
});
if (!values.model) throw new Error('--model DIR (a folder built with loopctl model --variant base,tools)');
const tools = loadTools(join(values.data, 'bfcl', 'tools.json')).slice(0, Number(values.texts));
const texts = tools.map((t) => toolText(t.name, t.description ?? ''));
const queries = loadCases(join(values.data, 'bfcl', 'cases.jsonl'), 'all')
  .slice(0, Number(values.queries))
  .map((c) => c.query);

const results = {};
for (let round = 0; round < Number(values.rounds); round++) {
  for (const device of values.devices.split(',')) {
    for (const variant of ['base', 'tools']) {
      const embedder = useLiteEmbedder({ modelPath: values.model, variant, device, numThreads: 1 });
      await embedder.load();
      let t = performance.now();
      await embedder.embed(texts);
      const corpus = texts.length / ((performance.now() - t) / 1000);
      const times = [];
      for (const q of queries) {
        t = performance.now();
        await embedder.embed([q]);
        times.push(performance.now() - t);
      }
      await embedder.dispose();
      const key = `${device} ${variant}`;
      results[key] ??= { corpus: [], p50: [], p95: [], load: [] };
      const r = results[key];
      r.corpus.push(corpus);
      r.p50.push(percentile(times, 0.5));
      r.p95.push(percentile(times, 0.95));
      r.load.push(loadavg()[0]);
      console.error(
        `round ${round + 1} ${key}: ${corpus.toFixed(1)} tools/s, query p50 ${percentile(times, 0.5).toFixed(2)} ms (load ${loadavg()[0].toFixed(1)})`,
      );
    }
  }
}
console.log(
  '| runtime | encoder | corpus tools/s (best of rounds) | query p50 ms (best) | query p95 ms (best) | load 1-min |\n| --- | --- | ---: | ---: | ---: | --- |',
);
for (const [key, r] of Object.entries(results)) {
  const [device, variant] = key.split(' ');
  console.log(
    `| ${device} | ${variant} | ${Math.max(...r.corpus).toFixed(1)} | ${Math.min(...r.p50).toFixed(2)} | ${Math.min(...r.p95).toFixed(2)} | ${Math.min(...r.load).toFixed(1)}–${Math.max(...r.load).toFixed(1)} |`,
  );
}
