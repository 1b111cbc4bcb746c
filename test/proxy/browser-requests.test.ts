/**
 * What a web page can make a browser send to a proxy on loopback, and how the proxy refuses it:
 * a body that is not declared JSON (`text/plain`, a form, none: the requests a page sends
 * without a CORS preflight) is a 415 in the provider's shape, and on a loopback bind a `Host`
 * that is not loopback (a DNS-rebound name) is a 403, so a page can neither drive the proxy nor
 * read its answers.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import type { UpstreamFixture } from './upstream-fixture.js';
import { startUpstreamFixture } from './upstream-fixture.js';

const TOKEN = 'browser-requests-token-0123456789';
const CHAT = JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }] });
const MESSAGES = JSON.stringify({ model: 'scripted', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });

let upstream: UpstreamFixture;
let passthrough: RunningServer;
const servers: RunningServer[] = [];

beforeAll(async () => {
  upstream = await startUpstreamFixture();
  passthrough = await startNodeServer({
    ...optionsFromVars({
      LOOPCTL_TOKEN: TOKEN,
      PROXY_AUTH: 'passthrough',
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      PROXY_ANTHROPIC_BASE_URL: upstream.anthropicBaseURL,
    }),
    registry: new ToolRegistry(),
    port: 0,
  });
  servers.push(passthrough);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await upstream?.close();
});

/** One request with exactly these headers (`Host` included), over node:http. */
function raw(
  origin: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const sent = httpRequest(`${origin}${path}`, { method: body === undefined ? 'GET' : 'POST', headers }, (reply) => {
      const chunks: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => chunks.push(chunk));
      reply.on('end', () => done({ status: reply.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', fail);
    sent.end(body);
  });
}

describe('bodies that are not declared JSON', () => {
  const refused: [string, string | undefined][] = [
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['no content type', undefined],
  ];
  for (const [what, type] of refused) {
    it(`${what}: 415 in the provider's shape, and nothing goes upstream`, async () => {
      const before = upstream.requests.length;
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      const chat = await raw(passthrough.url, '/v1/chat/completions', headers, CHAT);
      expect(chat.status).toBe(415);
      const openai = JSON.parse(chat.body) as { error: { type: string; code: string; message: string } };
      expect(openai.error.type).toBe('invalid_request_error');
      expect(openai.error.code).toBe('unsupported_media_type');
      expect(openai.error.message).toMatch(/application\/json/);
      const messages = await raw(passthrough.url, '/v1/messages', headers, MESSAGES);
      expect(messages.status).toBe(415);
      const anthropic = JSON.parse(messages.body) as { type: string; error: { type: string } };
      expect(anthropic.type).toBe('error');
      expect(anthropic.error.type).toBe('invalid_request_error');
      expect((await raw(passthrough.url, '/v1/responses', headers, CHAT)).status).toBe(415);
      expect(upstream.requests.length).toBe(before);
    });
  }

  it('application/json (with a charset) and application/…+json still pass', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
      const chat = await raw(passthrough.url, '/v1/chat/completions', { 'content-type': type }, CHAT);
      expect(chat.status, type).toBe(200);
    }
  });
});

describe('Host on a loopback bind', () => {
  it('a name that is not loopback (DNS rebinding) is a 403 on every route, in the route’s own shape', async () => {
    const port = new URL(passthrough.url).port;
    const json = { 'content-type': 'application/json' };
    const chat = await raw(passthrough.url, '/v1/chat/completions', { ...json, host: `rebound.example:${port}` }, CHAT);
    expect(chat.status).toBe(403);
    const openai = JSON.parse(chat.body) as { error: { message: string; code: string } };
    expect(openai.error.code).toBe('host_not_allowed');
    expect(openai.error.message).toMatch(/Host/);
    const messages = await raw(passthrough.url, '/v1/messages', { ...json, host: 'rebound.example' }, MESSAGES);
    expect(messages.status).toBe(403);
    expect((JSON.parse(messages.body) as { type: string; error: { type: string } }).error.type).toBe(
      'permission_error',
    );
    const tools = await raw(passthrough.url, '/v1/tools', {
      host: `rebound.example:${port}`,
      authorization: `Bearer ${TOKEN}`,
    });
    expect(tools.status).toBe(403);
    expect((JSON.parse(tools.body) as { error: { code: string } }).error.code).toBe('host_not_allowed');
    expect((await raw(passthrough.url, '/healthz', { host: '192.168.1.9' })).status).toBe(403);
  });

  it('127.0.0.1, localhost and [::1], with or without a port, are served', async () => {
    const port = new URL(passthrough.url).port;
    for (const host of ['127.0.0.1', `127.0.0.1:${port}`, `localhost:${port}`, 'LOCALHOST', `[::1]:${port}`]) {
      expect((await raw(passthrough.url, '/healthz', { host })).status, host).toBe(200);
      const chat = await raw(
        passthrough.url,
        '/v1/chat/completions',
        { host, 'content-type': 'application/json' },
        CHAT,
      );
      expect(chat.status, host).toBe(200);
    }
  });

  it('a bind that is not loopback checks no Host; allowedHosts (ALLOWED_HOSTS) sets the list, * allows any', async () => {
    const open = await startNodeServer({ registry: new ToolRegistry(), port: 0, hostname: '0.0.0.0' });
    servers.push(open);
    const local = `http://127.0.0.1:${open.port}`;
    expect((await raw(local, '/healthz', { host: 'proxy.example' })).status).toBe(200);
    const listed = await startNodeServer({
      ...optionsFromVars({ ALLOWED_HOSTS: 'proxy.example, localhost' }),
      registry: new ToolRegistry(),
      port: 0,
    });
    servers.push(listed);
    expect((await raw(listed.url, '/healthz', { host: 'proxy.example:443' })).status).toBe(200);
    expect((await raw(listed.url, '/healthz', { host: '127.0.0.1' })).status).toBe(403);
    const any = createApp({ ...optionsFromVars({ ALLOWED_HOSTS: '*' }), registry: new ToolRegistry() });
    expect((await any.request('http://anything.example/healthz')).status).toBe(200);
    const unset = createApp({ registry: new ToolRegistry() });
    expect((await unset.request('http://anything.example/healthz')).status).toBe(200);
  });
});
