// `npm run bench:big-prompt`: how far one body-limit-sized prompt moves the latency of small
// requests served alongside it (test/proxy/big-prompt-bench.ts; issue 29's target: < 50 ms).
// The proxy, two upstreams and the client run in four processes.
//
//   node scripts/bench-big-prompt.mjs [--model models/use-lite] [--rounds 3] [--alone 60] [--interval 20]
//     [--big-selector NAME] [--cpu-prof DIR] [--nested]
//
// --nested sends, instead of the long prompt, a body as large nested a million arrays deep (the
// security review's hostile body; refused with a 400 past PROXY_MAX_JSON_DEPTH).
// --big-selector NAME selects the big prompt with NAME (e.g. bm25: its body's path without model calls).
// --cpu-prof DIR writes the proxy process's V8 CPU profile (.cpuprofile, sampled every 100 µs) into DIR.
// Run it under the shared lock: flock /tmp/loopctl-heavy.lock npm run bench:big-prompt
import { mkdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    model: { type: 'string', default: join(root, 'models', 'use-lite') },
    rounds: { type: 'string', default: '3' },
    alone: { type: 'string', default: '60' },
    interval: { type: 'string', default: '20' },
    'cpu-prof': { type: 'string' },
    'big-selector': { type: 'string' },
    nested: { type: 'boolean', default: false },
  },
});

const { build } = await import('esbuild');
const outdir = join(root, '.wrangler', 'bench-build-big-prompt');
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: ['big-prompt-bench', 'big-prompt-proxy-child', 'big-prompt-upstream-child'].map((name) =>
    join(root, 'test', 'proxy', `${name}.ts`),
  ),
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
const { runBigPromptBench } = await import(pathToFileURL(join(outdir, 'big-prompt-bench.mjs')).href);

// The CPU time the host took from this machine (Linux /proc/stat "steal"): on a shared virtual
// machine it delays every process at random, and the worst request with it.
const cpuTimes = () => {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const n = fields.map(Number);
    return { total: n.reduce((a, b) => a + b, 0), steal: n[7] ?? 0 };
  } catch {
    return undefined;
  }
};
const profileDir = values['cpu-prof'] === undefined ? undefined : resolve(values['cpu-prof']);
const before = loadavg();
const timesBefore = cpuTimes();
const figures = await runBigPromptBench({
  modelDir: resolve(values.model),
  proxyChild: join(outdir, 'big-prompt-proxy-child.mjs'),
  upstreamChild: join(outdir, 'big-prompt-upstream-child.mjs'),
  bigRounds: Number(values.rounds),
  aloneCount: Number(values.alone),
  intervalMs: Number(values.interval),
  ...(values['big-selector'] ? { bigSelector: values['big-selector'] } : {}),
  ...(values.nested ? { bigKind: 'nested' } : {}),
  ...(profileDir ? { proxyExecArgv: ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profileDir}`] } : {}),
});
const after = loadavg();
const timesAfter = cpuTimes();
const steal =
  timesBefore && timesAfter && timesAfter.total > timesBefore.total
    ? `; CPU steal ${((100 * (timesAfter.steal - timesBefore.steal)) / (timesAfter.total - timesBefore.total)).toFixed(1)}%`
    : '';
const ms = (value) => `${value.toFixed(1)} ms`;
const line = (name, s) => `small requests ${name}: n=${s.n} p50 ${ms(s.p50)} p90 ${ms(s.p90)} max ${ms(s.max)}`;
const moved = { p50: figures.during.p50 - figures.alone.p50, max: figures.during.max - figures.alone.max };
console.log(
  `load average (1 min) before ${before[0].toFixed(2)}, after ${after[0].toFixed(2)}${steal}; one small request every ${values.interval} ms`,
);
console.log(
  `big prompt: ${(figures.bigBytes / 1024 / 1024).toFixed(2)} MiB body, ${figures.bigMs.length} rounds answered in ${figures.bigMs.map(ms).join(', ')}`,
);
console.log(line('alone ', figures.alone));
console.log(line('during', figures.during));
console.log(line('alone,  proxy before upstream', figures.aloneBeforeUpstream));
console.log(line('during, proxy before upstream', figures.duringBeforeUpstream));
console.log(
  `proxy from the first big request on: event loop longest delay ${ms(figures.proxyStalls.maxMs)}, p99 ${ms(figures.proxyStalls.p99Ms)}; CPU ${ms(figures.proxyStalls.cpuMs / figures.bigMs.length)} a big round (user ${ms(figures.proxyStalls.userMs / figures.bigMs.length)})`,
);
console.log(`moved: p50 ${ms(moved.p50)}, max ${ms(moved.max)}`);
// Each request on its own: how many of those served beside the big prompt took 50 ms or more
// longer than the typical one served alone (the worst is one request of about a hundred).
const past = figures.duringMs.filter((value) => value - figures.alone.p50 >= 50).length;
console.log(
  `small requests 50 ms or more over the alone p50: ${past} of ${figures.duringMs.length} (${((100 * past) / Math.max(1, figures.duringMs.length)).toFixed(1)}%)`,
);
if (profileDir) console.log(`proxy CPU profile: ${profileDir}`);
const met = moved.max < 50;
console.log(met ? 'Target (< 50 ms, worst request): met.' : 'Target (< 50 ms, worst request): missed.');
process.exitCode = met ? 0 : 1;
