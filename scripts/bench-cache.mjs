// `npm run bench:cache`: what each tool policy does to the bill (test/proxy/cache-bench.ts).
// Replays conversations through the proxy on the Node entry onto the recording upstream and
// bills the bodies the upstream received under Anthropic's and OpenAI's caching rules; then the
// session once per place a client puts its breakpoints (tools only, system only, last message
// only, several), each billed under both rules.
//
//   node scripts/bench-cache.mjs [--conversations 24] [--tools 30,128,1000] [--openai-read 0.25] [--quick] [--json out.json]
//
// Run it under the shared lock: flock /tmp/loopctl-heavy.lock npm run bench:cache
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    conversations: { type: 'string', default: '24' },
    tools: { type: 'string', default: '30,128,1000' },
    'openai-read': { type: 'string', default: '0.25' },
    data: { type: 'string', default: resolve(root, '../shared/eval') },
    model: { type: 'string', default: join(root, 'models', 'use-lite') },
    quick: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});

const { build } = await import('esbuild');
const outfile = join(root, '.wrangler', 'bench-build-cache', 'cache-bench.mjs');
mkdirSync(dirname(outfile), { recursive: true });
await build({
  entryPoints: [join(root, 'test', 'proxy', 'cache-bench.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const { runCacheBench } = await import(pathToFileURL(outfile).href);

const pct = (part, whole) => (whole === 0 ? '–' : `${Math.round((100 * part) / whole)}%`);
const k = (units) => `${(units / 1000).toFixed(1)}k`;
const header =
  '| scenario | results | tools | cache | all tools | narrow (before) | default | narrow / all | **default / all** | reached: narrow / default | upstream requests: default |\n|---|---|---|---|---|---|---|---|---|---|---|';
const placementHeader =
  '| breakpoints on | rules | results | tools | all tools | narrow (before) | default | narrow / all | **default / all** | reached: narrow / default | upstream requests: default |\n|---|---|---|---|---|---|---|---|---|---|---|';
const placementLine = (row) =>
  `| ${row.placement} | ${row.provider === 'anthropic' ? 'Anthropic' : 'OpenAI'} | ${row.results} | ${row.tools} | ${k(row.units.all)} | ${k(row.units.narrow)} | ${k(row.units.default)} | ${pct(row.units.narrow, row.units.all)} | **${pct(row.units.default, row.units.all)}** | ${pct(row.reached.narrow, 1)} / ${pct(row.reached.default, 1)} | ${row.requests.default.upstream} for ${row.requests.default.client} |`;
const line = (row) =>
  `| ${row.scenario} | ${row.results} | ${row.tools} | ${row.cached ? 'cached' : 'none'} | ${k(row.units.all)} | ${k(row.units.narrow)} | ${k(row.units.default)} | ${pct(row.units.narrow, row.units.all)} | **${pct(row.units.default, row.units.all)}** | ${pct(row.reached.narrow, 1)} / ${pct(row.reached.default, 1)} | ${row.requests.default.upstream} for ${row.requests.default.client} |`;

const started = Date.now();
const rows = await runCacheBench({
  evalDir: values.data,
  modelDir: values.model,
  conversations: values.quick ? 6 : Number(values.conversations),
  toolCounts: values.tools.split(',').map(Number),
  ...(values.quick ? { bfclResults: [200], sessionResults: [2000] } : {}),
  openaiRead: Number(values['openai-read']),
  onRow: (row) => console.error(row.table === 'placements' ? placementLine(row) : `${row.provider} ${line(row)}`),
});

const misses = [];
for (const row of rows) {
  const ratio = row.units.default / row.units.all;
  if (row.table === 'placements') {
    if (ratio > 1.0005)
      misses.push(
        `placement ${row.placement} under ${row.provider}'s rules, ${row.results}/${row.tools}: default ${pct(row.units.default, row.units.all)} of all tools`,
      );
    continue;
  }
  if (ratio > 1.0005)
    misses.push(
      `${row.provider} ${row.scenario} ${row.results}/${row.tools}/${row.cached ? 'cached' : 'none'}: default ${pct(row.units.default, row.units.all)} of all tools`,
    );
  if (row.cached && row.tools >= 1000 && ratio > 0.6)
    misses.push(
      `${row.provider} ${row.scenario} ${row.results}/${row.tools}: default ${pct(row.units.default, row.units.all)} > 60% at 1,000 tools`,
    );
  // Uncached, the default carries k client tools and its search tool where narrow carries k
  // (x-loopctl-k counts the client's tools), and pays the rounds that reach the rest.
  if (!row.cached && ratio - row.units.narrow / row.units.all > 0.06) {
    misses.push(
      `${row.provider} ${row.scenario} ${row.results}/${row.tools}/none: default ${pct(row.units.default, row.units.all)} vs narrow ${pct(row.units.narrow, row.units.all)}`,
    );
  }
}

for (const provider of ['anthropic', 'openai']) {
  const title =
    provider === 'anthropic'
      ? "Anthropic's rules (Messages; write 1.25×, read 0.1×, 1,024-token minimum; breakpoints after the tools, on the system prompt and on the last message)"
      : `OpenAI's rules (Chat Completions; cached input ${values['openai-read']}×, 1,024-token minimum, 128-token steps)`;
  console.log(`\n### ${title}\n\n${header}`);
  for (const row of rows.filter((entry) => entry.table === 'policies' && entry.provider === provider))
    console.log(line(row));
}
console.log(
  `\n### Breakpoint placements (the session on the Messages wire; Anthropic's rules as above, OpenAI's: an upstream that caches every prefix by itself, cached input ${values['openai-read']}×)\n\n${placementHeader}`,
);
for (const row of rows.filter((entry) => entry.table === 'placements')) console.log(placementLine(row));
console.log(`\nBilled input units (thousands). ${rows.length} rows in ${Math.round((Date.now() - started) / 1000)} s.`);
console.log(misses.length === 0 ? 'Targets: all met.' : `Targets missed:\n- ${misses.join('\n- ')}`);
if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 2));
process.exitCode = misses.length === 0 ? 0 : 1;
