#!/usr/bin/env node
/**
 * `npm run bench:http`: a bounded loopback load test of `POST /v1/select` with autocannon,
 * against the Node entry (@hono/node-server) and the workerd entry (the `--env onnx` bundle,
 * USE-lite inside the worker, served by Miniflare, and again on bare workerd): keyword and embedding selectors, 32 connections, 10 s each.
 * Reports p50/p99 latency, requests/s and errors; exits non-zero if any request failed.
 *
 * First, on a fresh server, a cold-start burst: 32 concurrent first `hybrid` selects (one model
 * load and one corpus embedding shared by all; every one must answer 200; p99 = the slowest).
 * Then the selecting proxy (`POST /v1/chat/completions`, 150 tools per request) in front of the
 * scripted model server (its own process, non-strict, answering a short JSON completion):
 * added latency over calling that upstream directly (sequential requests, one block per path
 * alternating with direct calls, p50/p99, `keyword` and warm `hybrid`), upstream request bytes
 * saved, and 32 connections with autocannon. A null proxy on the same runtime (reads the body,
 * forwards a fixed 9-tool body, relays the answer) gives the floor: what the hop alone adds.
 * On workerd both are served the way wrangler.toml deploys the worker (its compatibility flags,
 * `run_worker_first`, the asset router in front), so the floor holds every hop the proxy's
 * requests take; "own +p50" is a proxy path's added p50 minus the floor's.
 * `workerd-bare` serves the same bundle (and its null proxy) on bare `workerd serve`, the runtime
 * Cloudflare runs, without Miniflare's dev isolates (entry worker, RPC proxy, outbound worker,
 * asset router) in the request path; the model files come from a read-only disk service.
 *
 * Each server is warmed first (model load, corpus embedding), then left to settle
 * (`--settle-ms`, default 5000), so the figures are steady state.
 * No model server is needed for selection: it never calls the model.
 *
 * @example
 *   node scripts/bench-http.mjs                       # every runtime: node, workerd, workerd-bare
 *   node scripts/bench-http.mjs --only node --duration 5
 *   node scripts/bench-http.mjs --proxy-only           # skip the /v1/select rows
 *   node scripts/bench-http.mjs --no-proxy             # skip the proxy rows
 *   node scripts/bench-http.mjs --proxy-only --only workerd --proxy-selectors keyword
 *   node scripts/bench-http.mjs --proxy-only --only workerd --proxy-selectors keyword --profile 1000
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { buildNodeEntry } from './serve-node.mjs';
import { buildOnnxWorker, WORKER_MODEL_FILES } from './start-worker.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The deployed worker's settings (wrangler.toml, `--env onnx`), so Miniflare serves what deploys. */
const WORKER_CONFIG = deployedWorkerConfig(readFileSync(join(root, 'wrangler.toml'), 'utf8'));
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
const SEQUENTIAL = Number(option('--sequential', '200'));
const PROXY_SELECTORS = option('--proxy-selectors', 'keyword,hybrid').split(',').filter(Boolean);
const SETTLE_MS = Number(option('--settle-ms', '5000'));
/** `--profile N`: after the timed blocks, N `keyword` requests (and N through the null proxy) under V8's profiler, per isolate (workerd). */
const PROFILE = Number(option('--profile', '0'));

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

/**
 * `compatibility_date`, `compatibility_flags` and `[env.onnx.assets] run_worker_first` from
 * wrangler.toml. `run_worker_first` matters here: without it Miniflare's asset router first
 * looks every request up in the asset manifest (about 0.5 ms of CPU each) before the worker runs.
 */
function deployedWorkerConfig(toml) {
  const top = toml.split(/^\[/m)[0];
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(top)?.[1];
  if (!date) throw new Error('wrangler.toml: no compatibility_date');
  const flags = [...(/^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(top)?.[1] ?? '').matchAll(/"([^"]+)"/g)].map(
    (match) => match[1],
  );
  const assets = /^\[env\.onnx\.assets\]([^[]*)/m.exec(toml)?.[1] ?? '';
  return {
    compatibilityDate: date,
    compatibilityFlags: flags,
    runWorkerFirst: /^run_worker_first\s*=\s*true/m.test(assets),
  };
}

/** Miniflare's options for a worker served the way the deployed one is: its flags, its assets router. */
function workerdShape(assets) {
  return {
    compatibilityDate: WORKER_CONFIG.compatibilityDate,
    compatibilityFlags: WORKER_CONFIG.compatibilityFlags,
    assets: {
      directory: assets,
      binding: 'ASSETS',
      routerConfig: {
        has_user_worker: true,
        ...(WORKER_CONFIG.runWorkerFirst ? { invoke_user_worker_ahead_of_assets: true } : {}),
      },
    },
  };
}

/**
 * Serve a worker on bare `workerd` (the runtime Cloudflare runs, from the `workerd` package),
 * without Miniflare's dev isolates in the request path (its entry worker, RPC proxy and outbound
 * worker). The model files come from a read-only disk service bound as `ASSETS`; no KV.
 */
async function startBareWorkerd(name, { modules, bindings, assets }) {
  const dir = join(root, '.wrangler', 'bench-bare', name.replace(/\W+/g, '-'));
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const quote = JSON.stringify;
  const moduleLines = modules.map(
    (module) =>
      `(name = ${quote(module.name)}, ${module.type === 'CompiledWasm' ? 'wasm' : 'esModule'} = embed ${quote(relative(dir, module.path))})`,
  );
  const bindingLines = [
    ...Object.entries(bindings).map(([key, value]) => `(name = ${quote(key)}, text = ${quote(value)})`),
    ...(assets ? ['(name = "ASSETS", service = "assets")'] : []),
  ];
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .benchWorker),
    ${assets ? `(name = "assets", disk = (path = ${quote(assets)}, writable = false)),` : ''}
    (name = "internet", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const benchWorker :Workerd.Worker = (
  modules = [${moduleLines.join(', ')}],
  compatibilityDate = ${quote(WORKER_CONFIG.compatibilityDate)},
  compatibilityFlags = [${WORKER_CONFIG.compatibilityFlags.map(quote).join(', ')}],
  bindings = [${bindingLines.join(', ')}],
);
`;
  const file = join(dir, 'config.capnp');
  writeFileSync(file, config);
  const url = `http://127.0.0.1:${port}`;
  const binary = join(root, 'node_modules', 'workerd', 'bin', 'workerd');
  return { child: await startServer(name, binary, ['serve', file], {}, url), url };
}

/** Start a child process and wait until `url/healthz` answers. */
async function startServer(name, command, commandArgs, env, url) {
  const child = spawn(command, commandArgs, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
      ? {
          detail: {
            errors: result.errors,
            timeouts: result.timeouts,
            non2xx: result.non2xx,
            statusCodes: result.statusCodeStats,
          },
        }
      : {}),
  };
}

/**
 * Right after start, before any warm-up: `CONNECTIONS` concurrent first `hybrid` selects, which
 * must share one model load and one corpus embedding and all answer 200.
 */
async function coldBurst(url) {
  const started = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const t0 = performance.now();
      try {
        const response = await fetch(`${url}/v1/select`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: PROMPTS[i % PROMPTS.length], selector: 'hybrid' }),
          signal: AbortSignal.timeout(180_000),
        });
        const body = await response.json();
        return { status: response.status, fellOpen: body.fellOpen === true, ms: performance.now() - t0 };
      } catch (error) {
        return { status: 0, error: `${error}${error?.cause ? ` (${error.cause})` : ''}`, ms: performance.now() - t0 };
      }
    }),
  );
  const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const errors = outcomes.filter((o) => o.status !== 200 || o.fellOpen).length;
  const statuses = {};
  for (const o of outcomes) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
  return {
    selector: 'hybrid (cold burst)',
    p50: Math.round(ms[Math.floor(ms.length / 2)]),
    p99: Math.round(ms.at(-1)),
    rps: outcomes.length / ((performance.now() - started) / 1000),
    total: outcomes.length,
    errors,
    warmUpMs: 0,
    ...(errors > 0
      ? {
          detail: {
            statuses,
            fellOpen: outcomes.filter((o) => o.fellOpen).length,
            firstError: outcomes.find((o) => o.error)?.error,
          },
        }
      : {}),
  };
}

async function benchRuntime(name, start) {
  const { child, url } = await start();
  const rows = [];
  try {
    if (!args.includes('--proxy-only')) {
      const burst = { runtime: name, ...(await coldBurst(url)) };
      if (burst.detail)
        console.error(
          `[bench:http] ${name} cold burst: ${JSON.stringify(burst.detail)}\n${child.log?.().slice(-3000) ?? ''}`,
        );
      rows.push(burst);
    }
    if (upstream) {
      const floor = await startFloor(name, upstream, proxyTools);
      try {
        proxyRows.push(...(await benchProxy(name, url, upstream, proxyTools, floor)));
      } finally {
        await floor.stop();
      }
    }
    for (const selector of args.includes('--proxy-only') ? [] : SELECTORS) {
      const started = performance.now();
      const warm = await select(url, selector, PROMPTS[0]);
      if (warm.fellOpen) throw new Error(`${name} ${selector} fell open: ${warm.reason}`);
      const warmMs = performance.now() - started;
      for (const prompt of PROMPTS.slice(1)) await select(url, selector, prompt);
      const row = { runtime: name, selector, warmUpMs: Math.round(warmMs), ...(await load(url, selector)) };
      if (row.detail)
        console.error(
          `[bench:http] ${name}/${selector} errors: ${JSON.stringify(row.detail)}\n${child.log?.().slice(-3000) ?? ''}`,
        );
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

let bundled;
/** The `--env onnx` bundle and the model files it reads, built once for both workerd runtimes. */
function onnxBundle() {
  if (!bundled) {
    const assets = privateAssets();
    bundled = { assets, modules: buildOnnxWorker({ outdir: join(root, '.wrangler', 'bench-build'), assets }) };
  }
  return bundled;
}

/** The null proxy serves no files, but has the same asset router in front of it. */
function floorAssets() {
  const dir = join(root, '.wrangler', 'bench-floor-assets');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The scripted model server and the 150-tool set, bundled from the test support code. */
async function bundleUpstream() {
  const { build } = await import('esbuild');
  const outfile = join(root, '.wrangler', 'bench-build-upstream', 'upstream.mjs');
  await build({
    stdin: {
      contents:
        "export { startScriptedModelServer } from './test/support/scripted-model-server.ts'; export { openAITools, wideToolSet } from './test/support/wide-tool-set.ts';",
      resolveDir: root,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  return outfile;
}

/** Start the upstream in its own process (so it does not share an event loop with autocannon). */
async function startUpstream(bundle) {
  const controlPort = await freePort();
  const script = `
    const { createServer } = await import('node:http');
    const m = await import(${JSON.stringify(`file://${bundle}`)});
    // Keep-alive as long as hosted APIs keep it (Node's 5 s default would close connections a
    // busy proxy isolate still holds, and measure that race instead of the proxy).
    const server = await m.startScriptedModelServer({ strict: false, keepRequests: 64, keepAliveTimeoutMs: 120000, script: () => ({ text: 'ok', usage: { inputTokens: 10, outputTokens: 1 } }) });
    createServer((req, res) => {
      const sizes = server.requests.map((r) => ({ bytes: r.rawBytes.byteLength, tools: Array.isArray(r.json?.tools) ? r.json.tools.length : 0 }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: server.url, sizes }));
    }).listen(${controlPort}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const control = `http://127.0.0.1:${controlPort}`;
  for (let i = 0; i < 100; i++) {
    try {
      const { url } = await (await fetch(control)).json();
      return { child, url, control };
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill('SIGTERM');
  throw new Error('the scripted upstream did not start');
}

/**
 * V8's sampling profiler on every isolate of a Miniflare instance (the user worker, Miniflare's
 * entry and outbound workers, the asset router), over its inspector. workerd's clock stands
 * still during computation, so in-worker timers cannot split a request's CPU time; samples can.
 */
async function profileIsolates(inspectorPort) {
  const { createRequire } = await import('node:module');
  const WebSocket = createRequire(join(root, 'node_modules', 'miniflare', 'package.json'))('ws');
  const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json();
  const sessions = await Promise.all(
    targets.map(async (target) => {
      const socket = new WebSocket(target.webSocketDebuggerUrl);
      await new Promise((done, fail) => {
        socket.once('open', done);
        socket.once('error', fail);
      });
      const pending = new Map();
      let next = 0;
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        pending.get(message.id)?.(message.result);
        pending.delete(message.id);
      });
      const send = (method, params = {}) =>
        new Promise((done) => {
          pending.set(++next, done);
          socket.send(JSON.stringify({ id: next, method, params }));
        });
      await send('Profiler.enable');
      await send('Profiler.setSamplingInterval', { interval: 50 });
      await send('Profiler.start');
      return { name: target.title.replace(/^workerd: worker /, ''), socket, send };
    }),
  );
  return {
    /** Stop; per isolate, the sampled CPU time and the functions that spent it (self time, ms). */
    async stop() {
      const out = [];
      for (const session of sessions) {
        const { profile } = await session.send('Profiler.stop');
        session.socket.close();
        out.push({ name: session.name, ...selfTimes(profile) });
      }
      return out;
    },
  };
}

/**
 * Self time per function. A sample stands for the time until the next one; gaps over 1 ms are
 * the isolate waiting (I/O, other isolates), not running, and are left out.
 */
function selfTimes(profile) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node);
  const label = (node) =>
    `${node.callFrame.functionName || '(anonymous)'}${node.callFrame.lineNumber >= 0 ? `:${node.callFrame.lineNumber + 1}` : ''}`;
  const functions = new Map();
  let busyMs = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index + 1] ?? 0;
    const node = nodes.get(id);
    if (micros > 1000 || node.callFrame.functionName === '(idle)') return;
    // Native frames (fetch, read, forEach…) are named with the script function that called them.
    const parent = node.callFrame.url === '' ? parents.get(id) : undefined;
    const name = parent && parent.callFrame.url !== '' ? `${label(node)} in ${label(parent)}` : label(node);
    functions.set(name, (functions.get(name) ?? 0) + micros / 1000);
    busyMs += micros / 1000;
  });
  return { busyMs, functions: [...functions.entries()].sort((a, b) => b[1] - a[1]) };
}

/** `--profile`: N keyword requests through the proxy, then N through the null proxy, each profiled. */
async function profileProxy(name, proxy, floor, body, headers) {
  const report = [];
  for (const [path, target] of [
    ['proxy keyword', proxy],
    ['null proxy', floor],
  ]) {
    if (!target?.inspectorPort) continue;
    const profiler = await profileIsolates(target.inspectorPort);
    for (let i = 0; i < PROFILE; i++) await timed(target.url, body, headers(path));
    const isolates = await profiler.stop();
    report.push({ path, isolates });
  }
  for (const { path, isolates } of report) {
    const busy = isolates.filter((isolate) => isolate.busyMs > 0);
    const total = busy.reduce((sum, isolate) => sum + isolate.busyMs, 0);
    console.log(
      `\n[profile] ${name} ${path}: ${(total / PROFILE).toFixed(3)} ms of sampled CPU per request in JavaScript isolates (the profiler's own overhead included): ${busy.map((isolate) => `${isolate.name} ${(isolate.busyMs / PROFILE).toFixed(3)}`).join(', ')}`,
    );
    const user = isolates.find((isolate) => isolate.name.startsWith('core:user'));
    if (path === 'proxy keyword' && user) {
      console.log("[profile] the proxy worker's own functions, self ms per request:");
      for (const [fn, ms] of user.functions.slice(0, 25)) console.log(`  ${(ms / PROFILE).toFixed(4)}  ${fn}`);
    }
  }
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timed(url, body, headers) {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`HTTP ${response.status} from ${url}`);
  return { ms, response };
}

/** Proxy rows for one runtime: sequential added latency, bytes saved, and a 32-connection load. */
/**
 * The floor under any proxy on this runtime: a null proxy that reads the client's body and
 * sends a fixed ~4 KB body (9 tools) upstream, then relays the answer. No parsing, no
 * selection: what the extra hop alone costs here, so the proxy rows can be read against it.
 */
/** The null proxy as a worker: reads the body, forwards a fixed 9-tool body, relays the answer. */
const FLOOR_WORKER = `export default { async fetch(request, env) {
  if (new URL(request.url).pathname === '/healthz') return new Response('ok');
  await request.arrayBuffer();
  const answer = await fetch(env.FLOOR_TARGET, { method: 'POST', headers: { 'content-type': 'application/json' }, body: env.FLOOR_BODY });
  return new Response(await answer.arrayBuffer(), { status: answer.status, headers: { 'content-type': 'application/json', 'x-loopctl-advertised': '9' } });
} }`;

async function startFloor(name, upstream, tools) {
  const small = JSON.stringify({
    model: 'scripted',
    messages: [{ role: 'user', content: PROMPTS[0] }],
    tools: tools.slice(0, 9),
  });
  const target = `${upstream.url}/v1/chat/completions`;
  if (name === 'node') {
    const port = await freePort();
    const script = `
      import http from 'node:http';
      const agent = new http.Agent({ keepAlive: true });
      const target = new URL(process.env.FLOOR_TARGET);
      const small = process.env.FLOOR_BODY;
      http.createServer((req, res) => {
        if (req.url === '/healthz') return res.end('ok');
        req.resume();
        req.on('end', () => {
          const forwarded = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(small) } }, (answer) => {
            const chunks = [];
            answer.on('data', (chunk) => chunks.push(chunk));
            answer.on('end', () => res.writeHead(answer.statusCode, { 'content-type': 'application/json', 'x-loopctl-advertised': '9' }).end(Buffer.concat(chunks)));
          });
          forwarded.end(small);
        });
      }).listen(Number(process.env.FLOOR_PORT), '127.0.0.1');`;
    const url = `http://127.0.0.1:${port}`;
    const child = await startServer(
      'null proxy',
      process.execPath,
      ['--input-type=module', '-e', script],
      { FLOOR_PORT: String(port), FLOOR_TARGET: target, FLOOR_BODY: small },
      url,
    );
    return { url, stop: () => stop(child) };
  }
  if (name === 'workerd-bare') {
    const script = join(root, '.wrangler', 'bench-bare', 'floor.js');
    mkdirSync(dirname(script), { recursive: true });
    writeFileSync(script, FLOOR_WORKER);
    const { child, url } = await startBareWorkerd('null proxy bare', {
      modules: [{ name: 'floor.js', type: 'ESModule', path: script }],
      bindings: { FLOOR_TARGET: target, FLOOR_BODY: small },
    });
    return { url, stop: () => stop(child) };
  }
  // Served like the proxy worker (same flags, same asset router in front), so the floor holds
  // every hop the proxy's requests take and the difference is the proxy's own work.
  const { Miniflare } = await import('miniflare');
  const inspectorPort = PROFILE > 0 ? await freePort() : undefined;
  const mf = new Miniflare({
    ...workerdShape(floorAssets()),
    modules: true,
    script: FLOOR_WORKER,
    bindings: { FLOOR_TARGET: target, FLOOR_BODY: small },
    host: '127.0.0.1',
    port: await freePort(),
    cf: false,
    ...(inspectorPort ? { inspectorPort } : {}),
  });
  return { url: (await mf.ready).origin, stop: () => mf.dispose(), inspectorPort };
}

async function benchProxy(name, url, upstream, tools, floor) {
  const proxyURL = `${url}/v1/chat/completions`;
  const directURL = `${upstream.url}/v1/chat/completions`;
  const bodies = PROMPTS.map((prompt) =>
    JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: prompt }], tools }),
  );
  const auth = { authorization: `Bearer ${token}` };
  const modes = [
    { mode: 'direct', url: directURL, headers: {} },
    ...PROXY_SELECTORS.map((selector) => ({
      mode: `proxy ${selector}`,
      selector,
      url: proxyURL,
      headers: { ...auth, 'x-loopctl-selector': selector },
    })),
    ...(floor ? [{ mode: 'null proxy', url: `${floor.url}/v1/chat/completions`, headers: {} }] : []),
  ];
  // Warm up (model load, the 150-tool corpus) and read what the upstream received.
  const saved = {};
  for (const mode of modes.slice(1)) {
    const started = performance.now();
    const advertised = [];
    let sent = 0;
    for (const body of bodies) {
      const { response } = await timed(mode.url, body, mode.headers);
      if (response.headers.get('x-loopctl-fell-open'))
        throw new Error(`${name} ${mode.mode} fell open: ${response.headers.get('x-loopctl-fell-open')}`);
      advertised.push(Number(response.headers.get('x-loopctl-advertised')));
      const { sizes } = await (await fetch(upstream.control)).json();
      sent += sizes[sizes.length - 1].bytes;
    }
    const client = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
    saved[mode.mode] = {
      warmUpMs: Math.round(performance.now() - started),
      clientBytes: client / bodies.length,
      upstreamBytes: sent / bodies.length,
      advertised: advertised.reduce((a, b) => a + b, 0) / advertised.length,
    };
  }
  // Let what the warm-up set going in the background finish first (on workerd, the new corpus
  // written to the persisted KV): it held the first timed block back by several ms a request.
  await new Promise((done) => setTimeout(done, SETTLE_MS));
  // Sequential, in one block per proxy path: direct and that path alternate (which goes first
  // alternates too), so load noise hits both alike, and each path's added latency is against the
  // direct samples taken beside it. Not all paths in one round: a hybrid request leaves the proxy
  // process with garbage and WASM work that would land on whichever request comes next, and
  // charge keyword (and direct) for hybrid's cost.
  const samples = Object.fromEntries(modes.map((mode) => [mode.mode, []]));
  const directBeside = Object.fromEntries(modes.map((mode) => [mode.mode, []]));
  const inProxy = Object.fromEntries(modes.map((mode) => [mode.mode, []]));
  const [direct, ...proxied] = modes;
  for (const mode of proxied) {
    for (let i = 0; i < SEQUENTIAL; i++) {
      const body = bodies[i % bodies.length];
      for (const path of i % 2 === 0 ? [direct, mode] : [mode, direct]) {
        const { ms, response } = await timed(path.url, body, path.headers);
        samples[path.mode].push(ms);
        if (path === direct) directBeside[mode.mode].push(ms);
        // The proxy's own time before the upstream call (Server-Timing), free of network scheduling.
        // (workerd's clock stands still during computation, so only Node's figure means anything.)
        const own = name === 'node' ? /loopctl;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '') : null;
        if (own) inProxy[path.mode].push(Number(own[1]));
      }
    }
  }
  const ownStats = Object.fromEntries(
    Object.entries(inProxy).map(([mode, values]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return [mode, sorted.length ? { p50: percentile(sorted, 50), p99: percentile(sorted, 99) } : undefined];
    }),
  );
  const summary = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  };
  const stats = Object.fromEntries(Object.entries(samples).map(([mode, values]) => [mode, summary(values)]));
  const besideStats = Object.fromEntries(proxied.map((mode) => [mode.mode, summary(directBeside[mode.mode])]));
  if (PROFILE > 0) {
    await profileProxy(
      name,
      { url: proxyURL, inspectorPort: name === 'workerd' ? runtimeInspector : undefined },
      floor && { url: `${floor.url}/v1/chat/completions`, inspectorPort: floor.inspectorPort },
      bodies[0],
      (path) => (path === 'null proxy' ? {} : { ...auth, 'x-loopctl-selector': 'keyword' }),
    );
  }
  const rows = [];
  for (const mode of modes) {
    const load = await autocannon({
      url: mode.url,
      connections: CONNECTIONS,
      duration: DURATION,
      timeout: 30,
      requests: bodies.map((body) => ({
        method: 'POST',
        headers: { 'content-type': 'application/json', ...mode.headers },
        body,
      })),
    });
    const errors = load.errors + load.timeouts + load.non2xx;
    const s = saved[mode.mode];
    rows.push({
      runtime: name,
      mode: mode.mode,
      p50: stats[mode.mode].p50,
      p99: stats[mode.mode].p99,
      addedP50: mode.mode === 'direct' ? 0 : stats[mode.mode].p50 - besideStats[mode.mode].p50,
      addedP99: mode.mode === 'direct' ? 0 : stats[mode.mode].p99 - besideStats[mode.mode].p99,
      directP50: mode.mode === 'direct' ? undefined : besideStats[mode.mode].p50,
      ownP50: ownStats[mode.mode]?.p50,
      ownP99: ownStats[mode.mode]?.p99,
      advertised: s ? s.advertised : tools.length,
      upstreamBytes: s ? s.upstreamBytes : Buffer.byteLength(bodies[0]),
      savedPct: s ? 100 * (1 - s.upstreamBytes / s.clientBytes) : 0,
      loadP50: load.latency.p50,
      loadP99: load.latency.p99,
      rps: load.requests.average,
      errors,
      warmUpMs: s ? s.warmUpMs : 0,
    });
    if (errors > 0)
      console.error(
        `[bench:http] ${name}/${mode.mode} errors: ${JSON.stringify({ errors: load.errors, timeouts: load.timeouts, non2xx: load.non2xx, statusCodes: load.statusCodeStats })}`,
      );
  }
  return rows;
}

const runtimes = {
  node: async () => {
    const port = await freePort();
    const entry = await buildNodeEntry();
    const url = `http://127.0.0.1:${port}`;
    const script = `import(${JSON.stringify(`file://${entry}`)}).then((m) => m.main())`;
    const child = await startServer(
      'node',
      process.execPath,
      ['--input-type=module', '-e', script],
      {
        PORT: String(port),
        LOOPCTL_TOKEN: token,
        ...(upstream ? { PROXY_OPENAI_BASE_URL: `${upstream.url}/v1` } : {}),
      },
      url,
    );
    return { child, url };
  },
  workerd: async () => {
    // Bundled exactly as `wrangler deploy --env onnx` would, then served with Miniflare: workerd
    // with no dev proxy or file watcher in the request path.
    const { assets, modules } = onnxBundle();
    const { Miniflare } = await import('miniflare');
    runtimeInspector = PROFILE > 0 ? await freePort() : undefined;
    const mf = new Miniflare({
      ...modules,
      ...workerdShape(assets),
      kvNamespaces: ['VECTORS'],
      kvPersist: join(root, '.wrangler', 'bench-state', 'kv'),
      bindings: {
        LOOPCTL_TOKEN: token,
        MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
        ...(upstream ? { PROXY_OPENAI_BASE_URL: `${upstream.url}/v1` } : {}),
      },
      host: '127.0.0.1',
      port: await freePort(),
      cf: false,
      ...(runtimeInspector ? { inspectorPort: runtimeInspector } : {}),
    });
    const url = (await mf.ready).origin;
    return { child: { stop: () => mf.dispose() }, url };
  },
  // The same bundle on bare workerd: what the worker itself costs, without Miniflare's dev hops.
  'workerd-bare': async () => {
    const { assets, modules } = onnxBundle();
    return startBareWorkerd('workerd-bare', {
      modules: modules.modules.map((module) => ({ ...module, name: relative(modules.modulesRoot, module.path) })),
      assets,
      bindings: {
        LOOPCTL_TOKEN: token,
        MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
        ...(upstream ? { PROXY_OPENAI_BASE_URL: `${upstream.url}/v1` } : {}),
      },
    });
  },
};

const PROXY = !args.includes('--no-proxy');
/** The inspector port of the workerd runtime under test (`--profile`). */
let runtimeInspector;
const proxyRows = [];
let upstream;
let proxyTools;
if (PROXY) {
  const bundle = await bundleUpstream();
  const support = await import(`file://${bundle}`);
  proxyTools = support.openAITools(support.wideToolSet());
  upstream = await startUpstream(bundle);
}

const rows = [];
for (const [name, start] of Object.entries(runtimes)) {
  if (ONLY && ONLY !== name) continue;
  console.log(`[bench:http] ${name}: ${SELECTORS.join(' + ')}, ${CONNECTIONS} connections × ${DURATION} s each…`);
  rows.push(...(await benchRuntime(name, start)));
}

if (rows.length > 0) console.log('');
if (rows.length > 0)
  console.log(
    `POST /v1/select, ${CONNECTIONS} connections, ${DURATION} s, loopback (${PROMPTS.length} rotating prompts)`,
  );
if (rows.length > 0)
  console.log('runtime      selector             p50 ms  p99 ms   req/s   requests  errors  warm-up ms');
for (const row of rows) {
  console.log(
    `${row.runtime.padEnd(12)} ${row.selector.padEnd(20)} ${String(row.p50).padStart(6)} ${String(row.p99).padStart(7)} ${row.rps.toFixed(0).padStart(7)} ${String(row.total).padStart(10)} ${String(row.errors).padStart(7)} ${String(row.warmUpMs).padStart(11)}`,
  );
}
if (upstream) {
  upstream.child.kill('SIGTERM');
  const ms = (value) => value.toFixed(2).padStart(7);
  console.log('');
  console.log(
    `Proxy: POST /v1/chat/completions, ${proxyTools.length} tools per request, scripted upstream (separate process). Added latency: ${SEQUENTIAL} sequential requests per path, alternating with as many direct ones (+ms: against those); load: autocannon ${CONNECTIONS} connections × ${DURATION} s`,
  );
  console.log(
    'runtime      path            p50 ms  p99 ms  +p50 ms  +p99 ms  own +p50  in-proxy p50/p99 ms  tools  upstream KB  saved  | load p50  p99   req/s  errors  warm-up ms',
  );
  for (const row of proxyRows) {
    // The proxy's own share: its added p50 minus the null proxy's on the same runtime (the hop).
    const floor = proxyRows.find((other) => other.runtime === row.runtime && other.mode === 'null proxy');
    const own = row.mode.startsWith('proxy') && floor ? ms(row.addedP50 - floor.addedP50) : '      -';
    console.log(
      `${row.runtime.padEnd(12)} ${row.mode.padEnd(14)} ${ms(row.p50)} ${ms(row.p99)} ${ms(row.addedP50)}  ${ms(row.addedP99)}  ${own}  ${(row.ownP50 === undefined ? '-' : `${row.ownP50.toFixed(2)} / ${row.ownP99.toFixed(2)}`).padStart(19)} ${row.advertised.toFixed(1).padStart(6)} ${(row.upstreamBytes / 1024).toFixed(1).padStart(12)} ${`${row.savedPct.toFixed(1)}%`.padStart(6)}  | ${String(row.loadP50).padStart(8)} ${String(row.loadP99).padStart(4)} ${row.rps.toFixed(0).padStart(7)} ${String(row.errors).padStart(7)} ${String(row.warmUpMs).padStart(11)}`,
    );
  }
}
const { loadavg, cpus } = await import('node:os');
console.log(
  `\nLoad average (1/5/15 min) at the end: ${loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ')} on ${cpus().length} cores`,
);
const failed = [
  ...rows.filter((row) => row.errors > 0).map((row) => `${row.runtime}/${row.selector}`),
  ...proxyRows.filter((row) => row.errors > 0).map((row) => `${row.runtime}/${row.mode}`),
];
if (failed.length > 0) {
  console.error(`\n[bench:http] errors in: ${failed.join(', ')}`);
  process.exit(1);
}
