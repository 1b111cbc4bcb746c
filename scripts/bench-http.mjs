#!/usr/bin/env node
/**
 * `npm run bench:http`: a bounded loopback load test of `POST /v1/select` with autocannon,
 * against the Node entry (@hono/node-server) and the workerd entry (the `--env onnx` bundle,
 * USE-lite inside the worker, served by Miniflare): keyword and embedding selectors, 32 connections, 10 s each.
 * Reports p50/p99 latency, requests/s and errors; exits non-zero if any request failed.
 *
 * Each server is warmed first (model load, corpus embedding), so the figures are steady state.
 * No model server is needed: selection never calls the model.
 *
 * @example
 *   node scripts/bench-http.mjs                       # both runtimes
 *   node scripts/bench-http.mjs --only node --duration 5
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { buildNodeEntry } from './serve-node.mjs';
import { OFFLINE_ENV, WORKER_MODEL_FILES } from './start-worker.mjs';

/** Keep in step with wrangler.toml. */
const COMPATIBILITY_DATE = '2026-04-01';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(name);
  return index === -1 ? fallback : args[index + 1];
};
const DURATION = Number(option('--duration', '10'));
const CONNECTIONS = Number(option('--connections', '32'));
const ONLY = option('--only', undefined);
const SELECTORS = ['keyword', 'embedding'];
const PROMPTS = [
  'What is the weather like in Oslo tomorrow?',
  'Send an email to Ana about the May invoice',
  'Deploy the payments service to staging and show me its logs',
  'Open the pull request that fixes checkout totals',
];
const token = randomBytes(24).toString('base64url');

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Start a child process and wait until `url/healthz` answers. */
async function startServer(name, command, commandArgs, env, url) {
  const child = spawn(command, commandArgs, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk) => {
    log = (log + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.log = () => log;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited early:\n${log}`);
    try {
      if ((await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) })).ok) return child;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGTERM');
  throw new Error(`${name} did not start within 120 s:\n${log}`);
}

function stop(child) {
  if (typeof child.stop === 'function') return child.stop();
  return new Promise((done) => {
    if (child.exitCode !== null) return done();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill('SIGTERM');
  });
}

async function select(url, selector, prompt) {
  const response = await fetch(`${url}/v1/select`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, selector }),
    signal: AbortSignal.timeout(120_000),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`warm-up ${selector}: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function load(url, selector) {
  const result = await autocannon({
    url: `${url}/v1/select`,
    connections: CONNECTIONS,
    duration: DURATION,
    timeout: 30,
    requests: PROMPTS.map((prompt) => ({
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt, selector }),
    })),
  });
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    rps: result.requests.average,
    total: result.requests.total,
    errors,
    ...(errors > 0
      ? { detail: { errors: result.errors, timeouts: result.timeouts, non2xx: result.non2xx, statusCodes: result.statusCodeStats } }
      : {}),
  };
}

async function benchRuntime(name, start) {
  const { child, url } = await start();
  const rows = [];
  try {
    for (const selector of SELECTORS) {
      const started = performance.now();
      const warm = await select(url, selector, PROMPTS[0]);
      if (warm.fellOpen) throw new Error(`${name} ${selector} fell open: ${warm.reason}`);
      const warmMs = performance.now() - started;
      for (const prompt of PROMPTS.slice(1)) await select(url, selector, prompt);
      const row = { runtime: name, selector, warmUpMs: Math.round(warmMs), ...(await load(url, selector)) };
      if (row.detail) console.error(`[bench:http] ${name}/${selector} errors: ${JSON.stringify(row.detail)}\n${child.log?.().slice(-3000) ?? ''}`);
      rows.push(row);
    }
  } finally {
    await stop(child);
  }
  return rows;
}

/**
 * The worker reads only the model folder from its assets; a private copy keeps the bench
 * independent of build/demo (which a concurrent demo build may be rewriting).
 */
function privateAssets() {
  const dir = join(root, '.wrangler', 'bench-assets');
  rmSync(dir, { recursive: true, force: true });
  for (const file of WORKER_MODEL_FILES) {
    const from = join(root, 'models', 'use-lite', file);
    if (!existsSync(from)) throw new Error(`${from} is missing: run npm run build:model`);
    const to = join(dir, 'models', 'use-lite', file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
  return dir;
}

const runtimes = {
  node: async () => {
    const port = await freePort();
    const entry = await buildNodeEntry();
    const url = `http://127.0.0.1:${port}`;
    const script = `import(${JSON.stringify(`file://${entry}`)}).then((m) => m.main())`;
    const child = await startServer('node', process.execPath, ['--input-type=module', '-e', script], { PORT: String(port), LOOPCTL_TOKEN: token }, url);
    return { child, url };
  },
  workerd: async () => {
    const assets = privateAssets();
    const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
    // Bundle exactly as `wrangler deploy --env onnx` would, then serve it with Miniflare: workerd
    // with no dev proxy or file watcher in the request path.
    const outdir = join(root, '.wrangler', 'bench-build');
    const built = spawnSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--env', 'onnx', '--outdir', outdir, '--assets', assets], {
      cwd: root,
      env: { ...process.env, ...OFFLINE_ENV },
      encoding: 'utf8',
    });
    if (built.status !== 0) throw new Error(`wrangler build failed:\n${built.stdout}${built.stderr}`);
    const { Miniflare } = await import('miniflare');
    const mf = new Miniflare({
      // Listed explicitly: Miniflare's import scanner rejects ORT's computed dynamic imports.
      modulesRoot: outdir,
      modules: readdirSync(outdir)
        .filter((file) => file.endsWith('.js') || file.endsWith('.wasm'))
        .sort((a) => (a === 'workers-onnx.js' ? -1 : 1))
        .map((file) => ({ type: file.endsWith('.wasm') ? 'CompiledWasm' : 'ESModule', path: join(outdir, file) })),
      compatibilityDate: COMPATIBILITY_DATE,
      kvNamespaces: ['VECTORS'],
      kvPersist: join(root, '.wrangler', 'bench-state', 'kv'),
      assets: { directory: assets, binding: 'ASSETS', routerConfig: { has_user_worker: true } },
      bindings: { LOOPCTL_TOKEN: token, MODEL_BASE_URL: 'http://127.0.0.1:9/v1' },
      host: '127.0.0.1',
      port: await freePort(),
      cf: false,
    });
    const url = (await mf.ready).origin;
    return { child: { stop: () => mf.dispose() }, url };
  },
};

const rows = [];
for (const [name, start] of Object.entries(runtimes)) {
  if (ONLY && ONLY !== name) continue;
  console.log(`[bench:http] ${name}: ${SELECTORS.join(' + ')}, ${CONNECTIONS} connections × ${DURATION} s each…`);
  rows.push(...(await benchRuntime(name, start)));
}

console.log('');
console.log(`POST /v1/select, ${CONNECTIONS} connections, ${DURATION} s, loopback (${PROMPTS.length} rotating prompts)`);
console.log('runtime  selector   p50 ms  p99 ms   req/s   requests  errors  warm-up ms');
for (const row of rows) {
  console.log(
    `${row.runtime.padEnd(8)} ${row.selector.padEnd(10)} ${String(row.p50).padStart(6)} ${String(row.p99).padStart(7)} ${row.rps.toFixed(0).padStart(7)} ${String(row.total).padStart(10)} ${String(row.errors).padStart(7)} ${String(row.warmUpMs).padStart(11)}`,
  );
}
const failed = rows.filter((row) => row.errors > 0);
if (failed.length > 0) {
  console.error(`\n[bench:http] errors in: ${failed.map((row) => `${row.runtime}/${row.selector}`).join(', ')}`);
  process.exit(1);
}
