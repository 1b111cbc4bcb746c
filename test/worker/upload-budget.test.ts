/**
 * The bytes all unfinished uploads hold at once are capped per process (src/hono/upload-budget.ts),
 * on the Node entry over real HTTP: while a client that stopped mid-body holds the whole budget,
 * other bodies are a 503 with Retry-After, in the proxy's provider shapes and the API's own;
 * once that client goes, its bytes are given back and bodies read again. Without the cap, 32
 * connections declaring 8 MB and sending 4 MB took the server from 232 to 513 MB of RSS.
 */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/hono/config-vars.js';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';

const TOKEN = 'upload-budget-proxy-token-0123456789';
const KiB = 1024;

let upstream: Server;
let server: RunningServer;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"x","object":"chat.completion","choices":[]}');
    });
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  server = await startNodeServer({
    ...optionsFromVars({
      LOOPCTL_TOKEN: TOKEN,
      PROXY_OPENAI_BASE_URL: `${origin}/v1`,
      PROXY_ANTHROPIC_BASE_URL: origin,
      LOOPCTL_UPLOAD_BUFFER_BYTES: String(64 * KiB), // the first 64 KiB buffer of one upload fills it
    }),
    registry: new ToolRegistry(),
    port: 0,
  });
});

afterAll(async () => {
  await server?.close();
  await new Promise((done) => upstream?.close(done));
});

const chat = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

async function post(path: string, body: string, headers: Record<string, string>) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), json: await response.json() };
}

const openai = () => post('/v1/chat/completions', chat, { authorization: `Bearer ${TOKEN}` });

describe('the shared upload budget (Node entry)', () => {
  it('a client stalled mid-body holding the budget: others get a 503 with Retry-After, then it is given back', async () => {
    expect((await openai()).status).toBe(200);
    // Declares 1 MiB, sends 1 KiB and waits: the reader holds one 64 KiB buffer, all the budget.
    const { port } = new URL(server.url);
    const stalled = connect(Number(port), '127.0.0.1');
    await new Promise((done) => stalled.once('connect', done));
    stalled.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${TOKEN}\r\n` +
        `content-type: application/json\r\ncontent-length: ${1024 * KiB}\r\n\r\n${' '.repeat(KiB)}`,
    );
    let refused = await openai();
    for (let tries = 0; tries < 50 && refused.status !== 503; tries++) {
      await new Promise((done) => setTimeout(done, 100)); // until the server has begun the stalled body
      refused = await openai();
    }
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('1');
    expect(refused.json).toEqual({
      error: {
        message: expect.stringContaining('retry shortly'),
        type: 'server_error',
        param: null,
        code: 'server_busy',
      },
    });
    const anthropic = await post('/v1/messages', chat, { 'x-api-key': TOKEN, 'anthropic-version': '2023-06-01' });
    expect(anthropic.status).toBe(503);
    expect(anthropic.retryAfter).toBe('1');
    expect(anthropic.json).toEqual({
      type: 'error',
      error: { type: 'api_error', message: expect.stringContaining('retry shortly') },
    });
    const api = await post('/v1/select', JSON.stringify({ prompt: 'weather' }), { authorization: `Bearer ${TOKEN}` });
    expect(api.status).toBe(503);
    expect(api.retryAfter).toBe('1');
    expect(api.json).toEqual({ error: { code: 'server_busy', message: expect.stringContaining('retry shortly') } });

    stalled.destroy(); // the client goes away: its bytes are given back
    let after = await openai();
    for (let tries = 0; tries < 50 && after.status !== 200; tries++) {
      await new Promise((done) => setTimeout(done, 100));
      after = await openai();
    }
    expect(after.status).toBe(200);
  }, 30_000);

  it('LOOPCTL_UPLOAD_BUFFER_BYTES must be a number of at least 64 KiB', () => {
    expect(optionsFromVars({ LOOPCTL_UPLOAD_BUFFER_BYTES: '1048576' }).uploadBufferBytes).toBe(1024 * KiB);
    expect(optionsFromVars({}).uploadBufferBytes).toBeUndefined();
    for (const bad of ['1024', 'lots', '-1'])
      expect(() => optionsFromVars({ LOOPCTL_UPLOAD_BUFFER_BYTES: bad })).toThrow(ConfigError);
  });
});
