#!/usr/bin/env node
import { execFileSync } from 'node:child_process';
/**
 * Browser benchmark in headless Chromium: model load time, corpus embedding, and query
 * embedding p50/p95 on the WASM and WebGPU backends, plus the core bundle's gzip size. Prints a
 * table and writes `docs/browser-bench.md`.
 *
 * WebGPU here is SwiftShader's software adapter (`--enable-unsafe-webgpu`, no GPU on the
 * machine), so its numbers show the code path works, not what a real GPU does. It reuses the
 * corpus the WASM run left in IndexedDB (same profile, same embedder id): SwiftShader takes
 * about a minute and a half to embed 67 tool texts.
 *
 * The WASM columns are the median of `--loads` page loads (3 by default, each in a fresh browser
 * profile): the machine is shared, so one load can land on a busy moment.
 *
 * Usage: `node scripts/bench-browser.mjs [--loads 3] [--queries 40] [--gpu-queries 10] [--no-webgpu] [--no-build] [--out docs/browser-bench.md]`
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { buildDemo, CHROMIUM, launchChromium, repoRoot, serveDemo, waitReady } from './browser-harness.mjs';
import { staticGraph } from './static-graph.mjs';

const { values } = parseArgs({
  options: {
    loads: { type: 'string', default: '3' },
    queries: { type: 'string', default: '40' },
    'gpu-queries': { type: 'string', default: '10' },
    'no-webgpu': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    out: { type: 'string', default: join(repoRoot, 'docs', 'browser-bench.md') },
  },
});

/** Distinct queries so each embed call does real work (lengths vary like real prompts). */
const QUERIES = [
  "what's the weather in Paris tomorrow",
  'open a pull request for my branch and ask Dana to review it',
  'how much is 250 euros in yen',
  'find a free slot with Priya next week and book a meeting',
  'show me the error logs for the checkout service',
  'translate my last note into Spanish',
  'is it going to rain in Lisbon this weekend?',
  'email the invoice to the customer and cc finance',
  'roll back yesterday’s deploy of the payments API',
  'remind me to call mum at 6pm',
];

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const fmt = (n) => (n === undefined ? '–' : n < 10 ? n.toFixed(1) : Math.round(n).toLocaleString('en-US'));

/**
 * Build the library's core entry alone with the root config's settings, into a temp folder so
 * `dist/` is untouched, and gzip what it loads up front (`index.js` and its static chunks; the
 * optional parts behind `import()` are left out, as in the size gate). An unminified build is
 * reported for reference.
 */
async function coreBundleSize() {
  const sizes = {};
  for (const [label, minify] of [
    ['asBuilt', undefined],
    ['unminified', false],
  ]) {
    const outDir = mkdtempSync(join(tmpdir(), 'loopctl-core-'));
    try {
      await build({
        configFile: join(repoRoot, 'vite.config.ts'),
        root: repoRoot,
        logLevel: 'warn',
        build: {
          outDir,
          emptyOutDir: true,
          sourcemap: false,
          lib: { entry: { index: join(repoRoot, 'src/index.ts') }, formats: ['es'] },
          // The root config whitespace-minifies through the bundler's output option; turn both off.
          ...(minify === false ? { minify: false, rollupOptions: { output: { minify: false } } } : {}),
        },
      });
      // index.js and the chunks it imports statically: what `import 'loopctl'` loads up front.
      const dir = pathToFileURL(`${outDir}/`);
      const code = Buffer.concat(staticGraph(dir, 'index.js').map((file) => readFileSync(new URL(file, dir))));
      sizes[label] = { raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength };
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  }
  return sizes;
}

/** One backend: load the page, read load/corpus figures, then time query embeddings. */
async function runBackend(url, { device, webgpu, profile, queries, query = '' }) {
  const browser = await launchChromium({ webgpu, profile });
  try {
    const started = Date.now();
    await browser.page.goto(`${url}?device=${device}${query}`);
    const state = await waitReady(browser.page, 600_000);
    const readyMs = Date.now() - started;
    const load1 = loadavg()[0];
    if (state.backend?.device !== device)
      throw new Error(
        `asked for ${device}, the page runs ${state.backend?.device} (${state.backend?.fallbackReason ?? ''})`,
      );
    const times = await browser.page.evaluate(
      async ({ list, n }) => {
        const hook = window.__loopctl;
        for (const q of list.slice(0, 2)) await hook.timeEmbed([q]); // warm-up: first shapes compile
        const out = [];
        for (let i = 0; i < n; i++) out.push(await hook.timeEmbed([list[i % list.length]]));
        return out;
      },
      { list: QUERIES, n: queries },
    );
    const sorted = [...times].sort((a, b) => a - b);
    if (browser.external.length > 0) throw new Error(`requests outside 127.0.0.1: ${browser.external.join(', ')}`);
    return {
      device,
      threads: state.backend.numThreads,
      isolated: state.crossOriginIsolated,
      adapter: state.adapter,
      modelLoadMs: state.backend.loadMs,
      loadPhases: state.backend.loadPhases,
      modelBytes: state.backend.modelBytes,
      corpus: state.corpus,
      readyMs,
      load1,
      times,
      queries: times.length,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
    };
  } finally {
    await browser.close(true);
  }
}

/**
 * `loads` page loads of each configuration, alternating between them, each in a fresh profile (the
 * first in the configuration's `profile`, when given, so a later run can share what it stored). Per
 * configuration, the figures are the load with the median page-ready time; the query times are pooled
 * over every load; `readyAll` keeps each load's page-ready time.
 */
async function runLoadsAlternating(url, configurations, loads) {
  const runs = configurations.map(() => []);
  for (let i = 0; i < loads; i++) {
    for (const [c, options] of configurations.entries()) {
      const profile = i === 0 && options.profile ? options.profile : mkdtempSync(join(tmpdir(), 'loopctl-bench-load-'));
      try {
        runs[c].push(await runBackend(url, { ...options, profile }));
      } finally {
        if (profile !== options.profile) rmSync(profile, { recursive: true, force: true });
      }
    }
  }
  return runs.map(summarise);
}

function summarise(runs) {
  const byReady = [...runs].sort((a, b) => a.readyMs - b.readyMs);
  const median = byReady[Math.floor((byReady.length - 1) / 2)];
  const times = runs.flatMap((run) => run.times).sort((a, b) => a - b);
  return {
    ...median,
    readyAll: runs.map((run) => run.readyMs),
    loadAll: runs.map((run) => run.load1),
    queries: times.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
  };
}

if (!values['no-build']) await buildDemo();
const core = await coreBundleSize();
const server = await serveDemo();
const profile = mkdtempSync(join(tmpdir(), 'loopctl-bench-'));
const runs = [];
const bareProfile = mkdtempSync(join(tmpdir(), 'loopctl-bench-bare-'));
let bare;
try {
  // Fresh profiles: the first WASM run loads the shipped vectors (and leaves the corpus in
  // IndexedDB); the second has the shipped file turned off, so it embeds the corpus (as every
  // first visit did before vectors shipped).
  // The two WASM columns alternate load by load, so a busy moment on the shared machine hits both alike.
  const loads = Math.max(1, Number(values.loads));
  const shipped = { device: 'wasm', webgpu: false, profile, queries: Number(values.queries) };
  const none = {
    device: 'wasm',
    webgpu: false,
    profile: bareProfile,
    queries: Number(values.queries),
    query: '&vectors=none',
  };
  const [withFile, withoutFile] = await runLoadsAlternating(server.url, [shipped, none], loads);
  runs.push(withFile);
  bare = withoutFile;
  if (!values['no-webgpu']) {
    runs.push(
      await runBackend(server.url, { device: 'webgpu', webgpu: true, profile, queries: Number(values['gpu-queries']) }),
    );
  }
} finally {
  await server.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(bareProfile, { recursive: true, force: true });
}

const chromiumVersion = (() => {
  try {
    return execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
})();

const [wasm, gpu] = runs;
const load = (await import('node:os')).loadavg()[0].toFixed(2);
const column = (run, pick) => (run ? pick(run) : 'not run');
const all = [wasm, bare, gpu];
const row = (label, pick) => [label, ...all.map((run) => column(run, pick))];
const rows = [
  row('Backend', (r) =>
    r.device === 'webgpu'
      ? `WebGPU (${r.adapter ?? 'adapter'})`
      : `WASM SIMD, ${r.threads ?? 1} thread(s)${r.isolated ? ', isolated' : ''}`,
  ),
  row('Model load (int8, ms)', (r) => fmt(r.modelLoadMs)),
  row('… files / tokenizer / session / warm-up (ms)', (r) =>
    r.loadPhases
      ? [r.loadPhases.files, r.loadPhases.tokenizer, r.loadPhases.session, r.loadPhases.warmUp].map(fmt).join(' / ')
      : '–',
  ),
  row('… runtime up after (ms, alongside the files)', (r) => fmt(r.loadPhases?.runtime)),
  row('Corpus, 67 tools (ms)', (r) => `${fmt(r.corpus?.ms)} (${r.corpus?.source}, ${r.corpus?.corpusEmbeds} embedded)`),
  row('Query embed p50 (ms)', (r) => fmt(r.p50)),
  row('Query embed p95 (ms)', (r) => fmt(r.p95)),
  row('Queries timed', (r) => String(r.queries)),
  row('Page ready (ms)', (r) =>
    r.readyAll ? `**${fmt(r.readyMs)}** (${r.readyAll.map(fmt).join(', ')})` : fmt(r.readyMs),
  ),
];
const readyGain = wasm && bare ? `${Math.round((1 - wasm.readyMs / bare.readyMs) * 100)}%` : '–';
// Issue 18's yardstick: page ready with shipped vectors at least 30% below the 2,970 ms measured before.
const BASELINE_READY_MS = 2970;
const readyTarget = Math.floor(BASELINE_READY_MS * 0.7);
const readyVerdict = wasm
  ? `${fmt(wasm.readyMs)} ms, ${Math.round((1 - wasm.readyMs / BASELINE_READY_MS) * 100)}% below the 2,970 ms baseline: ${wasm.readyMs <= readyTarget ? 'met' : 'missed'}`
  : 'not run';
const loads = (run) => (run?.loadAll ?? []).map((l) => l.toFixed(2)).join(', ');
const HEAD = ['', 'WASM, shipped vectors', 'WASM, no vectors file', 'WebGPU'];
const coreRows = [
  [
    'dist/index.js + its static chunks, as built (root config)',
    `${(core.asBuilt.raw / 1024).toFixed(1)} KB`,
    `${(core.asBuilt.gzip / 1024).toFixed(1)} KB`,
  ],
  [
    'the same, unminified (reference)',
    `${(core.unminified.raw / 1024).toFixed(1)} KB`,
    `${(core.unminified.gzip / 1024).toFixed(1)} KB`,
  ],
];
const target = 25 * 1024;
const verdict = core.asBuilt.gzip < target ? 'under' : 'over';

const table = (head, body) =>
  [
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...body.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

console.log(`\n${table(HEAD, rows)}\n\n${table(['Core bundle', 'raw', 'gzip -9'], coreRows)}\n`);
console.log(`core gzip ${(core.asBuilt.gzip / 1024).toFixed(1)} KB: ${verdict} the 25 KB target`);

const markdown = `# Browser benchmark

Generated by \`node scripts/bench-browser.mjs\` (\`npm run bench:browser\`) on ${new Date().toISOString().slice(0, 10)}.
Headless ${chromiumVersion}, ${(await import('node:os')).cpus().length} cores, no GPU: WebGPU runs on SwiftShader's software
adapter (\`--enable-unsafe-webgpu\`), so its column shows the path works and agrees with WASM, not real GPU speed.
The page is the demo (\`build/demo\`) served on 127.0.0.1 with COOP/COEP; the model is USE-lite int8
(${wasm ? (wasm.modelBytes / 1024 / 1024).toFixed(1) : '?'} MB), every file served by the page itself.

${table(HEAD, rows)}

Each WASM column is the load with the median page-ready time of ${wasm?.readyAll?.length ?? 1} (every load's time in brackets, each a
fresh profile; the two columns' loads alternate); query times are pooled over the loads. Load average (1 min) as each page became ready: ${loads(wasm)} (shipped
vectors), ${loads(bare)} (no vectors file); ${load} when the runs finished, on ${(await import('node:os')).cpus().length} cores (a shared machine).
With the shipped vectors the page is ready ${readyGain} sooner than without them (same build, same machine, fresh profiles).
Target (issue 18): page ready with shipped vectors ≤ ${fmt(readyTarget)} ms; measured ${readyVerdict}.

- **Shipped vectors**: the demo build ships the demo registry's vectors (\`vectors/demo.lcv\`,
  see docs/vectors.md); the page fetches them alongside the model, so a first visit embeds only the prompt.
  The "no vectors file" column is the same page with \`?vectors=none\`: it embeds the 67 tools (what every
  first visit did before). That page runs a WASM thread per core (up to 4), which pays off for a corpus; with the
  shipped vectors the page embeds one prompt per call and runs one thread, which here gives the lower query p50
  and the earlier ready page (a second thread adds its start-up and hand-offs, and competes with the page for the cores).
- **Model load**: runtime start-up, tokenizer, model fetch, ONNX session creation and one warm-up run
  (\`UseLiteBackend.loadMs\`); the rows below split it (\`loadPhases\`): the downloads (vocabulary and model at once),
  the tokenizer, session creation (with any wait for the runtime) and the first run, one after the other; and when the
  runtime was up. The runtime (onnxruntime-web's module, its 14 MB \`.wasm\` compiled while it streams, any worker
  threads) needs no model, so it starts with the downloads rather than after them; the page preloads the lazily
  imported chunks and the runtime's glue with its HTML, and the \`.wasm\` too when it will surely run on WASM. Sessions are built at \`graphOptimizationLevel: 'basic'\`
  (constant folding dequantises the int8 weights; the graph is the one \`'all'\` gives, less one Gemm+Tanh fusion).
  Binary files are served with their content type, so \`vite preview\` no longer gzips the 7.8 MB model on every request
  (that cost about 0.4 s of every load measured before 2026-12-01 07:37 UTC, including the 2,970 ms page-ready baseline).
- **Corpus**: the first load takes the 67 demo tools' vectors from the shipped file and stores the corpus in
  IndexedDB, both while the model loads (neither needs it); the WebGPU run shares that profile, so it reads them
  back (SwiftShader needs about a minute and a half to embed them).
  The figure is what the corpus added once the model was ready, up to the first selection: one query embedding
  rides along (on WebGPU that first call also compiles the shaders); without a vectors file it is the corpus
  embedding itself.
- **Where the rest goes**: a Chromium trace of one load shows session creation is mostly V8 compiling the
  runtime's WASM functions on their first call (lazy compilation, on the page's thread), while the optimising tier
  compiles in the background on the other core. A model optimised at build time (\`optimizedModelFilePath\`) would
  skip the optimiser's passes at load, but it stores the weights folded to fp32: about three times the download.
- **Query embed**: one \`embed([prompt])\` call, cycling ${QUERIES.length} distinct prompts after two warm-up calls.

## Core bundle

${table(['Core bundle', 'raw', 'gzip -9'], coreRows)}

Target: under 25 KB gzip for \`dist/index.js\` and its static chunks as the root \`vite.config.ts\` builds them: **${verdict}**
(${(core.asBuilt.gzip / 1024).toFixed(1)} KB). The embedding runtimes are separate lazy imports and not in it.
`;
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(values.out, markdown);
console.log(`wrote ${relative(process.cwd(), values.out)}`);
