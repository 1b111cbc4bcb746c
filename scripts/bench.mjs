#!/usr/bin/env node
// `npm run bench`: speed figures on this machine. Selection on the 1,857-tool bfcl registry,
// and the loop's own per-turn overhead (everything but the model and the tools).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCases, loadTools, percentile } from '../dist/cli.js';
import { BareLoop, Bm25Selector, KeywordSelector, ToolRegistry } from '../dist/index.js';

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

export { results };
