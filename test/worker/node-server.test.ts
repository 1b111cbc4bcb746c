/**
 * `startNodeServer` and `useLiteFromDisk` (loopctl/hono/node) as an operator meets them: `PORT`
 * is honoured, a busy port is a clear error (from the library and from `node
 * scripts/serve-node.mjs`), and a wrong model folder fails at once, naming it, while a folder
 * that cannot load later is logged once and told to clients only as "embedding model unavailable"
 * (no server path, no error text).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { optionsFromVars } from '../../src/hono/env-options.js';
import { ListenError, type RunningServer, startNodeServer, useLiteFromDisk } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { UpstreamFixture } from '../proxy/upstream-fixture.js';
import { startUpstreamFixture, toolNames } from '../proxy/upstream-fixture.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'node-server-token-0123456789';
const registry = () =>
  new ToolRegistry().register({ name: 'get_weather', description: 'Weather for a city.' }, () => 'sunny');
const servers: RunningServer[] = [];
const work = mkdtempSync(join(tmpdir(), 'loopctl-node-server-'));
/** The variables these tests set in process.env, restored after each. */
const SET_VARS = ['PORT', 'LOOPCTL_TOKEN', 'PROXY_OPENAI_BASE_URL', 'PROXY_K'] as const;
const savedVars = Object.fromEntries(SET_VARS.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of SET_VARS) {
    const saved = savedVars[name];
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(work, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const probe = await startNodeServer({ registry: registry(), port: 0 });
  await probe.close();
  return probe.port;
}

describe('startNodeServer', () => {
  it('listens on PORT from the environment when no port is given', async () => {
    const port = await freePort();
    process.env.PORT = String(port);
    const server = await startNodeServer({ registry: registry() });
    servers.push(server);
    expect(server.port).toBe(port);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('an explicit port wins over PORT', async () => {
    process.env.PORT = '1';
    const server = await startNodeServer({ registry: registry(), port: 0 });
    servers.push(server);
    expect(server.port).not.toBe(1);
  });

  it('a PORT that is not a port number is a RangeError saying so', async () => {
    process.env.PORT = 'eighty';
    await expect(startNodeServer({ registry: registry() })).rejects.toThrow(
      /PORT="eighty" is not a port number \(0 to 65535/,
    );
    await expect(startNodeServer({ registry: registry(), port: 70_000 })).rejects.toThrow(RangeError);
  });

  it('a busy port rejects with a ListenError that says what to do; the server already there keeps serving', async () => {
    const first = await startNodeServer({ registry: registry(), port: 0 });
    servers.push(first);
    const refused = await startNodeServer({ registry: registry(), port: first.port }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ListenError);
    expect((refused as Error).message).toBe(
      `cannot listen on 127.0.0.1:${first.port}: the port is in use (EADDRINUSE); stop what listens there, or choose another port (the port option or PORT; 0 picks a free one)`,
    );
    expect(((refused as Error).cause as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
  });

  it('node scripts/serve-node.mjs on a busy port exits 1 with one line, no stack', async () => {
    const first = await startNodeServer({ registry: registry(), port: 0 });
    servers.push(first);
    const result = spawnSync(process.execPath, [join(root, 'scripts/serve-node.mjs')], {
      cwd: root,
      env: { ...process.env, PORT: String(first.port), LOOPCTL_TOKEN: TOKEN, LOOPCTL_MCP_SERVERS: '' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      `loopctl: cannot listen on 127.0.0.1:${first.port}: the port is in use (EADDRINUSE); stop what listens there, or choose another port (the port option or PORT; 0 picks a free one)`,
    );
  }, 90_000);
});

describe('startNodeServer reads the documented variables from process.env', () => {
  const tools = ['get_weather', 'send_email', 'stock_price'].map((name) => ({
    type: 'function' as const,
    function: { name, description: `The ${name.replace('_', ' ')} tool.`, parameters: { type: 'object' } },
  }));
  const ask = (url: string) =>
    new OpenAI({ baseURL: `${url}/v1`, apiKey: TOKEN, maxRetries: 0 }).chat.completions.create({
      model: 'scripted',
      messages: [{ role: 'user', content: 'weather in Oslo' }],
      tools,
    });
  /** The client's tools an upstream request carried (the proxy's own search tool left out). */
  const forwarded = (upstream: UpstreamFixture, index: number) =>
    toolNames(upstream.requests[index]?.json).filter((name) => tools.some((tool) => tool.function.name === name));

  it('the docs/worker.md snippet as written: PROXY_* and LOOPCTL_TOKEN from the environment configure the proxy', async () => {
    const upstream = await startUpstreamFixture();
    process.env.PROXY_OPENAI_BASE_URL = upstream.openAIBaseURL;
    process.env.PROXY_K = '1';
    process.env.LOOPCTL_TOKEN = TOKEN;
    process.env.PORT = '0';
    const server = await startNodeServer({ registry: registry(), token: process.env.LOOPCTL_TOKEN });
    servers.push(server, { url: '', port: 0, close: () => upstream.close() });
    const reply = await ask(server.url);
    expect(reply.choices[0]?.message.content).toBeTruthy();
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.path).toBe('/v1/chat/completions');
    // PROXY_K=1 kept the one weather tool of three.
    expect(forwarded(upstream, 0)).toEqual(['get_weather']);
  });

  it('explicit options win over the variables, key by key; `vars` replaces process.env', async () => {
    const upstream = await startUpstreamFixture();
    process.env.PROXY_OPENAI_BASE_URL = upstream.deadURL;
    process.env.PROXY_K = '1';
    process.env.LOOPCTL_TOKEN = 'not-the-token-0123456789';
    const server = await startNodeServer({
      registry: registry(),
      port: 0,
      token: TOKEN,
      proxy: { openaiBaseURL: upstream.openAIBaseURL },
    });
    servers.push(server, { url: '', port: 0, close: () => upstream.close() });
    await ask(server.url);
    expect(upstream.requests).toHaveLength(1);
    // PROXY_K still applies: only the base URL was given explicitly.
    expect(forwarded(upstream, 0)).toEqual(['get_weather']);

    const port = await freePort();
    const fromVars = await startNodeServer({
      registry: registry(),
      vars: { PORT: String(port), LOOPCTL_TOKEN: TOKEN, PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL },
    });
    servers.push(fromVars);
    expect(fromVars.port).toBe(port);
    await ask(fromVars.url);
    expect(upstream.requests).toHaveLength(2);
    expect(forwarded(upstream, 1)).toHaveLength(3);
  });

  it('a bad variable is a ConfigError naming it', async () => {
    process.env.PROXY_OPENAI_BASE_URL = 'not a url';
    await expect(startNodeServer({ registry: registry(), port: 0 })).rejects.toThrow(
      'PROXY_OPENAI_BASE_URL must be an http(s) URL',
    );
  });
});

describe('useLiteFromDisk', () => {
  it('a folder that does not exist throws at once, naming it and the command that builds it', () => {
    const missing = join(work, 'no-such-model');
    expect(() => useLiteFromDisk(missing)).toThrow(
      `useLiteFromDisk: ${missing} does not exist; build the model there with npx loopctl model --out ${missing} (or npm run build:model in the loopctl repository)`,
    );
  });

  it('a folder without a model throws, saying what is missing', () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    expect(() => useLiteFromDisk(empty)).toThrow(`useLiteFromDisk: ${empty} holds no USE-lite model (no vocab.json)`);
  });

  it('a folder that cannot load: the dense selectors answer 503 and the proxy falls open, neither naming the folder or the error; the log says it once', async () => {
    const damaged = join(work, 'damaged');
    mkdirSync(damaged);
    writeFileSync(join(damaged, 'vocab.json'), '[]'); // looks built, but has no weights
    const upstream = await startUpstreamFixture();
    const logged: unknown[] = [];
    const server = await startNodeServer({
      ...optionsFromVars({ PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL }),
      registry: registry(),
      port: 0,
      token: TOKEN,
      embedder: useLiteFromDisk(damaged),
      onError: (error) => logged.push(error),
    });
    servers.push(server, { url: '', port: 0, close: () => upstream.close() });
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const select = (selector: string) =>
      fetch(`${server.url}/v1/select`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ prompt: 'weather in Oslo', selector }),
      });
    const leaks = (text: string): boolean => text.includes(work) || /ENOENT|no such file|errno/i.test(text);
    for (let i = 0; i < 2; i++) {
      const refused = await select('hybrid');
      expect(refused.status).toBe(503);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('selector_unavailable');
      expect(body.error.message).toMatch(/embedding model (is )?unavailable/);
      expect(leaks(body.error.message), body.error.message).toBe(false);
    }
    const tools = ['get_weather', 'send_email'].map((name) => ({
      type: 'function',
      function: { name, description: `The ${name} tool.`, parameters: { type: 'object' } },
    }));
    const proxied = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'x-loopctl-k': '1' },
      body: JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'weather in Oslo' }], tools }),
    });
    expect(proxied.status).toBe(200);
    await proxied.text();
    const fellOpen = proxied.headers.get('x-loopctl-fell-open') ?? '';
    expect(fellOpen).toMatch(/embedding model (is )?unavailable/);
    expect(leaks(fellOpen), fellOpen).toBe(false);
    expect((await select('keyword')).status).toBe(200);
    // The server log has the detail (the folder, the reason, the fix), once.
    expect(logged).toHaveLength(1);
    expect(String((logged[0] as Error).message)).toContain(damaged);
  });
});
