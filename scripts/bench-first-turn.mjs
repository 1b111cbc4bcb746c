#!/usr/bin/env node
/**
 * The first turn as a user's process meets it: a fresh Node process loads USE-lite, then one
 * selector seeded from a vectors file ranks bfcl's 1,857 tools for one prompt. Nothing is warm
 * (no JIT, no cache), so this is the honest cold figure beside bench.mjs's in-process p50.
 * Prints one JSON line. `npm run bench` runs it a few times per selector.
 *
 *   node scripts/bench-first-turn.mjs --vectors FILE [--selector embedding|hybrid] [--query TEXT]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const started = performance.now();
const { values } = parseArgs({
  options: {
    vectors: { type: 'string' },
    selector: { type: 'string', default: 'embedding' },
    query: { type: 'string', default: 'What is the weather like in Boston tomorrow, in celsius?' },
    data: { type: 'string', default: resolve(import.meta.dirname, '../../shared/eval') },
  },
});
if (!values.vectors) throw new Error('--vectors FILE is required');
const { loadTools } = await import('../dist/cli.js');
const { EmbeddingSelector, HybridSelector, memoryVectorCache } = await import('../dist/index.js');
const { useLiteEmbedder } = await import('../dist/use-lite.js');

const tools = loadTools(join(values.data, 'bfcl', 'tools.json'));
const file = new Uint8Array(readFileSync(values.vectors));
const embedder = useLiteEmbedder({ modelPath: resolve(import.meta.dirname, '../models/use-lite'), numThreads: 1 });
const backend = await embedder.load();
const loaded = performance.now();

const Selector = values.selector === 'hybrid' ? HybridSelector : EmbeddingSelector;
const selector = new Selector(embedder, { cache: memoryVectorCache(), vectors: file });
const output = await selector.select({ turn: 1, latestUserMessage: values.query, conversation: [] }, tools, {});
const done = performance.now();
if (output.fellOpen) throw new Error(`first turn fell open: ${output.fellOpen}`);

console.log(
  JSON.stringify({
    selector: values.selector,
    device: backend.device,
    processToModelLoadedMs: Math.round(loaded - started),
    modelLoadMs: Math.round(backend.loadMs),
    firstSelectMs: Math.round((done - loaded) * 10) / 10,
    advertised: output.tools.length,
    load: Math.round(loadavg()[0] * 100) / 100,
  }),
);
process.exit(0);
