#!/usr/bin/env node
/**
 * The leave-one-dataset-out table: for each eval set, its **test** split ranked by the base
 * encoder and by the tuned encoder trained without that set (its model folder from
 * make-delta.mjs, i.e. the int8 delta rebuilt by the shipped code path), embedding and hybrid
 * at k = 4/8/16. Optionally the shipped model (trained on every dev split) as a third column.
 *
 *   flock /tmp/loopctl-heavy.lock node scripts/train/eval-lodo.mjs \
 *     --run bfcl=.cache/train/runs/lodo-bfcl --run metatool=… --run bfcl_multi_turn=… \
 *     [--shipped .cache/train/runs/all] [--out docs/tuned-encoder.json]
 *
 * Run `npm run build` first (it reads dist/).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { evaluate, loadCases, loadTools, makeSelector, memoEmbedder } from '../../dist/cli.js';
import { o200kTokenCounter } from '../../dist/index.js';
import { useLiteEmbedder } from '../../dist/use-lite.js';

const root = resolve(import.meta.dirname, '..', '..');
const { values } = parseArgs({
  options: {
    data: { type: 'string', default: resolve(root, '..', 'shared', 'eval') },
    run: { type: 'string', multiple: true, default: [] },
    shipped: { type: 'string' },
    base: { type: 'string', default: join(root, 'models', 'use-lite') },
    ks: { type: 'string', default: '4,8,16' },
    selectors: { type: 'string', default: 'embedding,hybrid' },
    out: { type: 'string' },
    limit: { type: 'string' },
    device: { type: 'string', default: 'auto' },
    // 'dev' only to choose a recipe (the held-out set's dev split); reported figures are 'test'.
    split: { type: 'string', default: 'test' },
  },
});
const runs = Object.fromEntries(values.run.map((r) => r.split('=')).map(([set, dir]) => [set, resolve(dir)]));
const ks = values.ks.split(',').map(Number);
const selectors = values.selectors.split(',');
const counter = await o200kTokenCounter();

const embedderFor = (modelPath, variant) =>
  memoEmbedder(useLiteEmbedder({ modelPath, variant, numThreads: 1, device: values.device }));

async function score(embedder, tools, cases) {
  const out = {};
  for (const name of selectors) {
    for (const k of ks) {
      const selector = await makeSelector(name, { k, embedder: async () => embedder, noCache: true });
      const report = await evaluate(selector, tools, cases, counter, { name, k });
      out[`${name}@${k}`] = { fullRecall: report.fullRecall, recall: report.recall };
    }
  }
  return out;
}

const rows = [];
const shipped = values.shipped ? embedderFor(join(resolve(values.shipped), 'model'), 'tools') : undefined;
const base = embedderFor(values.base, 'base');
for (const [set, run] of Object.entries(runs)) {
  const tools = loadTools(join(values.data, set, 'tools.json'));
  let cases = loadCases(join(values.data, set, 'cases.jsonl'), values.split);
  if (values.limit) cases = cases.slice(0, Number(values.limit));
  const started = performance.now();
  const row = {
    set,
    cases: cases.length,
    base: await score(base, tools, cases),
    lodo: await score(embedderFor(join(run, 'model'), 'tools'), tools, cases),
  };
  if (shipped) row.shipped = await score(shipped, tools, cases);
  rows.push(row);
  // Each set's figures as it finishes, so a run cut short still reports the sets it did.
  console.error(`${set}: ${((performance.now() - started) / 1000).toFixed(0)} s ${JSON.stringify(row)}`);
}

const cols = selectors.flatMap((s) => ks.map((k) => `${s}@${k}`));
let md = `| set (test cases) | encoder | ${cols.join(' | ')} |\n| --- | --- | ${cols.map(() => '---:').join(' | ')} |\n`;
for (const r of rows) {
  const line = (label, figures) =>
    `| ${r.set} (${r.cases}) | ${label} | ${cols.map((c) => figures[c].fullRecall.toFixed(3)).join(' | ')} |\n`;
  md += line('base', r.base);
  md += line('tuned without this set', r.lodo);
  md += `| | Δ points | ${cols.map((c) => `${((r.lodo[c].fullRecall - r.base[c].fullRecall) * 100).toFixed(1)}`).join(' | ')} |\n`;
  if (r.shipped) md += line('shipped (all dev splits)', r.shipped);
}
console.log(md);
if (values.out)
  writeFileSync(
    values.out,
    `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), runs, shipped: values.shipped ?? null, rows }, null, 1)}\n`,
  );
