/**
 * A request body nested far deeper than any provider's is refused with a 400 in the provider's
 * own shape, at once, on the Node entry over real HTTP: small bodies (one JSON.parse) and large
 * ones (parsed in steps, src/hono/proxy/body-in-steps.ts) alike. Before the nesting check, a
 * 1.2 MB body of nested arrays took the large-body parser 6 s (a rescan of the rest of the text
 * per level) and ended in a stack overflow and a 500; a 4 MB one 43 s, with every other request
 * stalled meanwhile.
 */
import type { Server } from 'node:http';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/hono/config-vars.js';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { proxySettingsFromVars } from '../../src/hono/proxy/proxy-env.js';
import { ToolRegistry } from '../../src/index.js';

const TOKEN = 'deep-nesting-proxy-token-0123456789';
const REPLY = JSON.stringify({
  id: 'chatcmpl-deep',
  object: 'chat.completion',
  created: 0,
  model: 'scripted',
  choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
});

let upstream: Server;
let server: RunningServer;
let shallow: RunningServer; // PROXY_MAX_JSON_DEPTH=8
let forwarded = 0;

beforeAll(async () => {
  // An upstream that reads the body and answers, whatever the path (the proxy passes it back).
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      forwarded++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(REPLY);
    });
  });
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done));
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const vars = { LOOPCTL_TOKEN: TOKEN, PROXY_OPENAI_BASE_URL: `${origin}/v1`, PROXY_ANTHROPIC_BASE_URL: origin };
  server = await startNodeServer({ ...optionsFromVars(vars), registry: new ToolRegistry(), port: 0 });
  shallow = await startNodeServer({
    ...optionsFromVars({ ...vars, PROXY_MAX_JSON_DEPTH: '8' }),
    registry: new ToolRegistry(),
    port: 0,
  });
});

afterAll(async () => {
  await server?.close();
  await shallow?.close();
  await new Promise((done) => upstream?.close(done));
});

type Endpoint = '/v1/chat/completions' | '/v1/messages';
const ENDPOINTS: Endpoint[] = ['/v1/chat/completions', '/v1/messages'];

const headersFor = (path: Endpoint, length?: number): Record<string, string> => ({
  'content-type': 'application/json',
  ...(path === '/v1/messages'
    ? { 'x-api-key': TOKEN, 'anthropic-version': '2023-06-01' }
    : { authorization: `Bearer ${TOKEN}` }),
  ...(length !== undefined ? { 'content-length': String(length) } : {}),
});

/**
 * A valid request whose `metadata` holds arrays nested so the whole body is `depth` levels deep
 * (the body's object is one, `metadata` two), padded to about `size` characters with a prompt.
 */
function bodyOfDepth(depth: number, size = 0): string {
  const nested = `${'['.repeat(depth - 2)}1${']'.repeat(depth - 2)}`;
  const prompt = 'weather in Oslo '.repeat(Math.ceil(size / 16));
  return JSON.stringify({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: `hi ${prompt}` }] }).replace(
    /}$/,
    `,"metadata":{"nested":${nested}}}`,
  );
}

// Arrays nested `levels` deep inside the conversation, `size` characters in all: the attack.
function nestedBody(size: number): string {
  const levels = Math.floor(size / 2);
  return `{"model":"m","max_tokens":16,"messages":[{"role":"user","content":${'['.repeat(levels)}${']'.repeat(levels)}}]}`;
}

async function post(base: RunningServer, path: Endpoint, body: string) {
  const started = performance.now();
  const response = await fetch(`${base.url}${path}`, { method: 'POST', headers: headersFor(path), body });
  const json = (await response.json()) as Record<string, unknown>;
  return { status: response.status, json, ms: performance.now() - started };
}

// The provider's 400 shape, with the nesting message and nothing of the server's internals.
function expectDepthError(path: Endpoint, json: Record<string, unknown>, depth: number): void {
  const message = `the request body nests arrays and objects more than ${depth} levels deep`;
  if (path === '/v1/messages')
    expect(json).toEqual({ type: 'error', error: { type: 'invalid_request_error', message } });
  else expect(json).toEqual({ error: { message, type: 'invalid_request_error', param: null, code: null } });
}

describe('request bodies nested past the limit (Node entry)', () => {
  for (const path of ENDPOINTS) {
    it(`${path}: 1.2 MB and 4 MB of nested arrays are a 400 in the provider's shape, at once`, async () => {
      for (const size of [1_200_000, 4_000_000]) {
        const before = forwarded;
        const { status, json, ms } = await post(server, path, nestedBody(size));
        expect(status).toBe(400);
        expectDepthError(path, json, 128);
        expect(forwarded).toBe(before); // refused before it reached the upstream
        // Unchecked: 6 s for 1.2 MB, 43 s for 4 MB. A refusal from the first levels is milliseconds.
        expect(ms).toBeLessThan(3000);
      }
    }, 120_000);

    it(`${path}: small nested bodies past the limit are a 400 too, both paths agreeing on the limit`, async () => {
      const { status, json } = await post(server, path, nestedBody(100_000));
      expect(status).toBe(400);
      expectDepthError(path, json, 128);
    }, 60_000);
  }

  it('a body exactly at the limit is forwarded, small or large; one level more is refused', async () => {
    for (const size of [0, 1_200_000]) {
      for (const path of ENDPOINTS) {
        const atLimit = bodyOfDepth(128, size);
        expect(atLimit.length).toBeGreaterThanOrEqual(size);
        expect((await post(server, path, atLimit)).status).toBe(200);
        const past = await post(server, path, bodyOfDepth(129, size));
        expect(past.status).toBe(400);
        expectDepthError(path, past.json, 128);
      }
    }
  }, 60_000);

  it('PROXY_MAX_JSON_DEPTH sets the limit', async () => {
    expect((await post(shallow, '/v1/chat/completions', bodyOfDepth(8))).status).toBe(200);
    const past = await post(shallow, '/v1/messages', bodyOfDepth(9, 1_200_000));
    expect(past.status).toBe(400);
    expectDepthError('/v1/messages', past.json, 8);
    expect(proxySettingsFromVars({ PROXY_MAX_JSON_DEPTH: '256' }).maxJsonDepth).toBe(256);
    for (const bad of ['0', '1025', 'deep', '-1'])
      expect(() => proxySettingsFromVars({ PROXY_MAX_JSON_DEPTH: bad })).toThrow(ConfigError);
  }, 60_000);

  it('a small request is answered while a 4 MB nested body is being handled', async () => {
    const big = nestedBody(4_000_000);
    const url = new URL(`${server.url}/v1/chat/completions`);
    let uploaded!: () => void;
    const sent = new Promise<void>((done) => {
      uploaded = done;
    });
    // The big request by node:http, to know when its whole body has gone out.
    const bigStatus = new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: headersFor('/v1/chat/completions', big.length),
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      request.on('error', reject);
      request.end(big, uploaded);
    });
    await sent;
    const small = await post(server, '/v1/chat/completions', bodyOfDepth(4));
    expect(small.status).toBe(200);
    // Unchecked, the small request waited for the big one's 43 s (or its connection was reset).
    expect(small.ms).toBeLessThan(2000);
    expect(await bigStatus).toBe(400);
  }, 120_000);
});
