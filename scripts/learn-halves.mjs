// The replay's halves without the proxy: for each labelled registry (tools.json + cases.jsonl),
// split its cases by the first hex digit of the SHA-256 of the case id (even → A, odd → B, the
// rule of scripts/bench-learn-replay.mjs), `learn` half A on a fresh hybrid (k = 8, USE-lite)
// and score half B before and after (full recall@8 as `evaluate` counts it: the selection with its
// prerequisites). Prints each set's before → after and the sum over all sets. About 12 s for the
// eight registries, so a learner change can be judged on all of them at once (docs/tuning-learn.md).
// It prints per-set counts only, never cases, so it may run on the blind registries.
//
//   npx vite build && node scripts/learn-halves.mjs [--sets workdesk,mixdesk,...] [--data DIR]
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: 'workdesk,mixdesk,holdout,fielddesk,travelbook,clinicdesk,shopops,idemcp' },
    data: { type: 'string', default: join(root, 'test', 'fixtures') },
    model: { type: 'string', default: join(root, 'models', 'use-lite') },
  },
});
const load = (file) => import(pathToFileURL(join(root, 'dist', file)).href);
const { evaluate, makeSelector, memoEmbedder } = await load('cli.js');
const { approxTokenCounter } = await load('index.js');
const { useLiteEmbedder } = await load('use-lite.js');
const memo = memoEmbedder(useLiteEmbedder({ modelPath: values.model }));
const spec = { k: 8, embedder: async () => memo };
const half = (id) => (Number.parseInt(createHash('sha256').update(id).digest('hex')[0], 16) % 2 === 0 ? 'A' : 'B');

let total = 0;
let before = 0;
let after = 0;
for (const set of values.sets.split(',')) {
  const dir = join(values.data, set);
  const tools = JSON.parse(readFileSync(join(dir, 'tools.json'), 'utf8'));
  const cases = readFileSync(join(dir, 'cases.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
  const a = cases.filter((item) => half(item.id) === 'A');
  const b = cases.filter((item) => half(item.id) === 'B');
  const hits = (report) => Math.round(report.fullRecall * b.length);
  const plain = await makeSelector('hybrid', spec);
  const was = hits(await evaluate(plain, tools, b, approxTokenCounter, { name: 'hybrid', k: 8 }));
  const learner = await makeSelector('hybrid', spec);
  const summary = await learner.learn(
    a.map((item) => ({ query: item.query, tools: item.expected })),
    { tools },
  );
  const is = hits(await evaluate(learner, tools, b, approxTokenCounter, { name: 'hybrid+learned', k: 8 }));
  total += b.length;
  before += was;
  after += is;
  const projection = summary.projection?.applied ? `projection α ${summary.projection.blend}` : 'projection off';
  console.log(`${set.padEnd(12)} ${tools.length} tools, A ${a.length} / B ${b.length}: ${was} → ${is} (${projection})`);
}
console.log(`all ${total} B cases: ${before} → ${after} (${after - before >= 0 ? '+' : ''}${after - before})`);
