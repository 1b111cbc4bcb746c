/**
 * Whose credentials reach which upstream, over real HTTP on Node: each upstream gets only the
 * key configured for it (`MODEL_API_KEY` never crosses to the other protocol), a token holder's
 * own credential-like headers (another vendor's key, the organisation or project billed) stay
 * behind in token mode, and an upstream error that echoes the server's key (whole, or masked as
 * `sk-…abcd`) reaches the client with the key redacted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import type { ScriptedReply } from '../support/scripted-model-server.js';
import type { FrontRequest, UpstreamFixture } from './upstream-fixture.js';
import { startUpstreamFixture } from './upstream-fixture.js';

const TOKEN = 'credentials-proxy-token-0123456789';
const MODEL_KEY = 'sk-model-key-3f9a1c7e5b2d4f6a8c0e';
const OPENAI_KEY = 'sk-proj-openai-key-8d1e4b7a2c5f9e3b';
const ANTHROPIC_KEY = 'sk-ant-api03-anthropic-key-6c2a9f4e1b7d';

let upstream: UpstreamFixture;
const servers: RunningServer[] = [];

/** The key the upstream received, as the request carried it. */
function receivedKey(request: FrontRequest): string {
  return request.headers['x-api-key'] ?? (request.headers.authorization ?? '').replace(/^Bearer /, '');
}

/** A masked echo as OpenAI writes it: the key's start, stars, its last four characters. */
function masked(key: string): string {
  return `${key.slice(0, 8)}${'*'.repeat(20)}${key.slice(-4)}`;
}

/** `[[scenario:echo-key]]`: a 401 that quotes the key it got, whole and masked; else a short answer. */
function script(request: FrontRequest): ScriptedReply {
  if (!request.rawBody.includes('[[scenario:echo-key]]')) return { text: 'ok' };
  const key = receivedKey(request);
  const slow = request.rawBody.includes('[[slow]]');
  return {
    kind: 'error',
    status: 401,
    message: `Incorrect API key provided: ${masked(key)}. You sent "${key}".`,
    ...(slow ? { delayMs: 1200 } : {}),
  };
}

async function start(vars: Record<string, string>): Promise<RunningServer> {
  const server = await startNodeServer({
    ...optionsFromVars({
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      PROXY_ANTHROPIC_BASE_URL: upstream.anthropicBaseURL,
      ...vars,
    }),
    registry: new ToolRegistry(),
    port: 0,
    onError: () => undefined,
  });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  upstream = await startUpstreamFixture({ script });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await upstream?.close();
});

type Route = '/v1/chat/completions' | '/v1/messages' | '/v1/responses';

function send(
  server: RunningServer,
  route: Route,
  id: string,
  options: { headers?: Record<string, string>; stream?: boolean; extra?: string } = {},
): Promise<Response> {
  const content = `hi [[id:${id}]]${options.extra ?? ''}`;
  const body =
    route === '/v1/messages'
      ? { model: 'scripted', max_tokens: 16, messages: [{ role: 'user', content }] }
      : route === '/v1/responses'
        ? { model: 'scripted', input: content }
        : { model: 'scripted', messages: [{ role: 'user', content }] };
  return fetch(`${server.url}${route}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      'anthropic-version': '2023-06-01',
      ...options.headers,
    },
    body: JSON.stringify({ ...body, ...(options.stream ? { stream: true } : {}) }),
  });
}

/** What the upstream received for the request tagged `id`. */
function received(id: string): FrontRequest {
  const request = upstream.requests.find((entry) => entry.rawBody.includes(`[[id:${id}]]`));
  if (!request) throw new Error(`the upstream never saw ${id}`);
  return request;
}

describe('one key per upstream', () => {
  it('MODEL_API_KEY (MODEL_PROVIDER openai) goes to the OpenAI upstream only, never to Anthropic', async () => {
    const server = await start({ LOOPCTL_TOKEN: TOKEN, MODEL_API_KEY: MODEL_KEY });
    await (await send(server, '/v1/chat/completions', 'key-openai-1')).text();
    await (await send(server, '/v1/messages', 'key-anthropic-1')).text();
    expect(received('key-openai-1').headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    const anthropic = received('key-anthropic-1').headers;
    expect(JSON.stringify(anthropic)).not.toContain(MODEL_KEY);
    expect(anthropic['x-api-key']).toBeUndefined();
    expect(anthropic.authorization).toBeUndefined();
  });

  it('MODEL_API_KEY with MODEL_PROVIDER anthropic goes to the Anthropic upstream only', async () => {
    const server = await start({ LOOPCTL_TOKEN: TOKEN, MODEL_PROVIDER: 'anthropic', MODEL_API_KEY: MODEL_KEY });
    await (await send(server, '/v1/chat/completions', 'key-openai-2')).text();
    await (await send(server, '/v1/messages', 'key-anthropic-2')).text();
    expect(received('key-anthropic-2').headers['x-api-key']).toBe(MODEL_KEY);
    expect(JSON.stringify(received('key-openai-2').headers)).not.toContain(MODEL_KEY);
  });

  it('PROXY_OPENAI_API_KEY and PROXY_ANTHROPIC_API_KEY: each upstream gets its own key', async () => {
    const server = await start({
      LOOPCTL_TOKEN: TOKEN,
      MODEL_API_KEY: MODEL_KEY,
      PROXY_OPENAI_API_KEY: OPENAI_KEY,
      PROXY_ANTHROPIC_API_KEY: ANTHROPIC_KEY,
    });
    await (await send(server, '/v1/chat/completions', 'key-openai-3')).text();
    await (await send(server, '/v1/responses', 'key-responses-3')).text();
    await (await send(server, '/v1/messages', 'key-anthropic-3')).text();
    expect(received('key-openai-3').headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(received('key-responses-3').headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(received('key-anthropic-3').headers['x-api-key']).toBe(ANTHROPIC_KEY);
    for (const id of ['key-openai-3', 'key-responses-3', 'key-anthropic-3']) {
      expect(JSON.stringify(received(id).headers)).not.toContain(MODEL_KEY);
    }
    expect(JSON.stringify(received('key-anthropic-3').headers)).not.toContain(OPENAI_KEY);
    expect(JSON.stringify(received('key-openai-3').headers)).not.toContain(ANTHROPIC_KEY);
  });
});

describe("the client's credential-like headers", () => {
  const clientCredentials = {
    'x-goog-api-key': 'AIza-client-google-key',
    'openai-organization': 'org-client-picked',
    'openai-project': 'proj_client_picked',
    'x-custom-api-key': 'client-custom-key',
    'x-auth-token': 'client-auth-token',
    cookie: 'session=client',
  };

  it('token mode: none reaches the upstream; telemetry and protocol headers still do', async () => {
    const server = await start({ LOOPCTL_TOKEN: TOKEN, PROXY_OPENAI_API_KEY: OPENAI_KEY });
    const response = await send(server, '/v1/chat/completions', 'creds-token', {
      headers: { ...clientCredentials, 'x-stainless-lang': 'js', 'openai-beta': 'assistants=v2' },
    });
    expect(response.status).toBe(200);
    await response.text();
    const headers = received('creds-token').headers;
    for (const name of Object.keys(clientCredentials)) expect(headers[name], name).toBeUndefined();
    expect(headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(headers['x-stainless-lang']).toBe('js');
    expect(headers['openai-beta']).toBe('assistants=v2');
  });

  it("pass-through mode: they are the client's own, and go upstream", async () => {
    const server = await start({ PROXY_AUTH: 'passthrough' });
    const response = await send(server, '/v1/chat/completions', 'creds-passthrough', {
      headers: { ...clientCredentials, authorization: 'Bearer sk-client-own-key' },
    });
    expect(response.status).toBe(200);
    await response.text();
    const headers = received('creds-passthrough').headers;
    expect(headers['x-goog-api-key']).toBe('AIza-client-google-key');
    expect(headers['openai-organization']).toBe('org-client-picked');
    expect(headers['openai-project']).toBe('proj_client_picked');
    expect(headers.authorization).toBe('Bearer sk-client-own-key');
  });
});

describe('upstream errors that echo the key', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await start({
      LOOPCTL_TOKEN: TOKEN,
      MODEL_API_KEY: OPENAI_KEY,
      PROXY_OPENAI_API_KEY: OPENAI_KEY,
      PROXY_ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      PROXY_KEEPALIVE_MS: '300',
    });
  });

  const cases: [Route, string][] = [
    ['/v1/chat/completions', OPENAI_KEY],
    ['/v1/responses', OPENAI_KEY],
    ['/v1/messages', ANTHROPIC_KEY],
  ];

  for (const [route, key] of cases) {
    it(`${route}: the status and shape pass through, the key (whole or masked) does not`, async () => {
      const id = `echo-${route.slice(4).replace('/', '-')}`;
      const response = await send(server, route, id, { extra: ' [[scenario:echo-key]]' });
      expect(response.status).toBe(401);
      const text = await response.text();
      expect(received(id).headers.authorization ?? received(id).headers['x-api-key']).toContain(key);
      expect(text).toContain('Incorrect API key provided');
      expect(text).not.toContain(key);
      expect(text).not.toContain(masked(key));
      expect(text).not.toContain(key.slice(-4));
      expect(() => JSON.parse(text)).not.toThrow();
    });
  }

  it('a stream whose upstream fails after the keep-alive began: the error event carries no key', async () => {
    const response = await send(server, '/v1/chat/completions', 'echo-stream', {
      stream: true,
      extra: ' [[scenario:echo-key]] [[slow]]',
    });
    const text = await response.text();
    expect(text).toContain('Incorrect API key provided');
    expect(text).not.toContain(OPENAI_KEY);
    expect(text).not.toContain(OPENAI_KEY.slice(-4));
  });
});
