// `npm run bench:big-prompt`: how far one body-limit-sized prompt moves the latency of small
// requests served alongside it (test/proxy/big-prompt-bench.ts; issue 29's target: < 50 ms).
//
//   node scripts/bench-big-prompt.mjs [--model models/use-lite]
//
// Run it under the shared lock: flock /tmp/loopctl-heavy.lock npm run bench:big-prompt
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { model: { type: 'string', default: join(root, 'models', 'use-lite') } } });

const { build } = await import('esbuild');
const outfile = join(root, '.wrangler', 'bench-build-big-prompt', 'big-prompt-bench.mjs');
mkdirSync(dirname(outfile), { recursive: true });
await build({
  entryPoints: [join(root, 'test', 'proxy', 'big-prompt-bench.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const { runBigPromptBench } = await import(pathToFileURL(outfile).href);

const figures = await runBigPromptBench(values.model);
const ms = (value) => `${value.toFixed(1)} ms`;
const moved = { p50: figures.during.p50 - figures.alone.p50, max: figures.during.max - figures.alone.max };
console.log(`big prompt: ${(figures.bigBytes / 1024 / 1024).toFixed(2)} MiB, answered in ${ms(figures.bigMs)}`);
console.log(`small requests alone:  n=${figures.alone.n} p50 ${ms(figures.alone.p50)} max ${ms(figures.alone.max)}`);
console.log(`small requests during: n=${figures.during.n} p50 ${ms(figures.during.p50)} max ${ms(figures.during.max)}`);
console.log(`moved: p50 ${ms(moved.p50)}, max ${ms(moved.max)}`);
const met = moved.max < 50;
console.log(met ? 'Target (< 50 ms, worst request): met.' : 'Target (< 50 ms, worst request): missed.');
process.exitCode = met ? 0 : 1;
