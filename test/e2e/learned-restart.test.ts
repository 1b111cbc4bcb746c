/**
 * What the proxy learns on Workers outlives `wrangler dev` (issue 49): the real wrangler.toml's
 * `onnx` environment (USE-lite in the worker, so the hybrid selector learns) runs three times in
 * a row on one `--persist-to` folder, with `PROXY_LEARN=on`, proxying to a loopback upstream.
 *
 *   1. a conversation whose model called a tool is sent through the proxy; it is stored in the
 *      `LearnedTrafficObject` Durable Object (`GET /v1/learned` shows it); wrangler stops;
 *   2. a fresh wrangler (new workerd, new isolates) still lists it, ranks a prompt like it with a
 *      learned selector (`x-loopctl-learned: 1`), then forgets it (`DELETE /v1/learned`); stops;
 *   3. a third wrangler lists nothing and ranks the prompt unlearned: the forgetting lasted too.
 *
 * Offline: the assets folder holds only the model files the worker reads (not the demo page),
 * and wrangler runs with no telemetry or downloads (`OFFLINE_ENV`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OFFLINE_ENV, WORKER_MODEL_FILES } from '../../scripts/start-worker.mjs';
import { startUpstreamFixture, toolNames, type UpstreamFixture } from '../proxy/upstream-fixture.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'learned-restart-e2e-token-0123456789';
const HEADERS = {
  authorization: `Bearer ${TOKEN}`,
  'content-type': 'application/json',
  'x-loopctl-selector': 'hybrid',
  'x-loopctl-policy': 'narrow',
  'x-loopctl-k': '3',
};

const TOPICS = ['weather', 'email', 'calendar', 'files', 'payments', 'search', 'maps', 'notes', 'music', 'photos'];
const TOOLS = TOPICS.map((topic, i) => ({
  type: 'function',
  function: { name: `${topic}_tool_${i}`, description: `Work with ${topic}.`, parameters: {} },
}));
const TAUGHT = 'music_tool_8';
const PROMPT = 'Sort out the usual thing for the Oslo office before Friday';
const LIKE_IT = 'Sort out the usual thing for the Oslo office before Monday';
// Two conversations that agree: one near example alone does not vote (learned.agreement).
const AGAIN = 'Sort out the usual thing for the Oslo office before Sunday';

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

let upstream: UpstreamFixture;
let folder: string;
let assets: string;
let persist: string;
let running: { child: ChildProcess; url: string; log: () => string } | undefined;

beforeAll(async () => {
  upstream = await startUpstreamFixture();
  folder = await mkdtemp(join(tmpdir(), 'loopctl-learned-restart-'));
  persist = join(folder, 'state');
  assets = join(folder, 'assets');
  for (const file of WORKER_MODEL_FILES) {
    const target = join(assets, 'models', 'use-lite', file);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(root, 'models', 'use-lite', file), target);
  }
});

afterAll(async () => {
  await stop();
  await upstream?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** `wrangler dev --env onnx` on the shared persist folder; resolves once `/healthz` answers. */
async function start(): Promise<void> {
  const port = await freePort();
  const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
  const args = [
    wrangler,
    'dev',
    '--env',
    'onnx',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--persist-to',
    persist,
    '--assets',
    assets,
    '--show-interactive-dev-session=false',
    '--var',
    'PROXY_LEARN:on',
    '--var',
    `LOOPCTL_TOKEN:${TOKEN}`,
    '--var',
    `PROXY_OPENAI_BASE_URL:${upstream.openAIBaseURL}`,
  ];
  // Its own process group, so stopping it stops workerd with it.
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, ...OFFLINE_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  const keep = (chunk: Buffer) => {
    log += chunk.toString();
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  running = { child, url: `http://127.0.0.1:${port}`, log: () => log };
  const deadline = Date.now() + 100_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log}`);
    try {
      if ((await fetch(`${running.url}/healthz`, { signal: AbortSignal.timeout(5000) })).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`wrangler dev did not answer /healthz:\n${log}`);
}

/** Stop wrangler and its workerd, and wait until they are gone. */
async function stop(): Promise<void> {
  const child = running?.child;
  running = undefined;
  if (!child?.pid || child.exitCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  process.kill(-child.pid, 'SIGTERM');
  await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000))]);
  if (child.exitCode === null) {
    process.kill(-child.pid, 'SIGKILL');
    await exited;
  }
}

const url = (path: string): string => `${running?.url}${path}`;

/** A Chat Completions request through the proxy; the learned header and what went upstream. */
async function chat(messages: unknown[]): Promise<{ learned: string | null; forwarded: string[] }> {
  const before = upstream.requests.length;
  const response = await fetch(url('/v1/chat/completions'), {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ model: 'm', messages, tools: TOOLS }),
  });
  const text = await response.text();
  expect(response.status, `${text}\n${running?.log()}`).toBe(200);
  return { learned: response.headers.get('x-loopctl-learned'), forwarded: toolNames(upstream.requests[before]?.json) };
}

async function learned(): Promise<{ count: number; examples: { query: string; tools: string[] }[] }> {
  const response = await fetch(url('/v1/learned'), { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { count: number; examples: { query: string; tools: string[] }[] };
}

/** Poll `probe` until `done` holds (storing and the learned copy's build run after the answer). */
async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}\n${running?.log()}`);
    await new Promise((wait) => setTimeout(wait, 200));
  }
}

const ask = (text: string) => [{ role: 'user', content: text }];

it('learned traffic survives a wrangler dev restart, and so does forgetting it', async () => {
  await start();
  for (const prompt of [PROMPT, AGAIN]) {
    const first = await chat([
      { role: 'user', content: prompt },
      { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: TAUGHT, arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok": true}' },
    ]);
    // The first is ranked unlearned; the second may already meet the first's learned copy.
    if (prompt === PROMPT) expect(first.learned).toBe('0');
  }
  await until(learned, (answer) => answer.count === 2, 'the examples were never stored');
  await stop();

  await start();
  const kept = await learned();
  expect(kept.examples.map(({ query, tools }) => ({ query, tools }))).toEqual([
    { query: PROMPT, tools: [TAUGHT] },
    { query: AGAIN, tools: [TAUGHT] },
  ]);
  const ranked = await until(
    () => chat(ask(LIKE_IT)),
    (result) => result.learned !== '0',
    'never ranked learned',
  );
  expect(ranked.learned).toBe('2');
  expect(ranked.forwarded).toContain(TAUGHT);
  const forgotten = await fetch(url('/v1/learned'), {
    method: 'DELETE',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(await forgotten.json()).toEqual({ forgotten: 2 });
  await stop();

  await start();
  expect((await learned()).count).toBe(0);
  // A fresh isolate would build a learned copy after its first request if anything were left.
  for (let n = 0; n < 3; n++) {
    expect((await chat(ask(LIKE_IT))).learned).toBe('0');
    await new Promise((wait) => setTimeout(wait, 300));
  }
}, 400_000);
