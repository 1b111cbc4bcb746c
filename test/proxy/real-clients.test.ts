/**
 * The proxy on Node (@hono/node-server, the same code `node scripts/serve-node.mjs` runs),
 * driven by the real client libraries over loopback HTTP, with USE-lite as the embedder (so
 * the default selector is the warm `hybrid`) and the scripted upstream behind it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerDemoTools } from '../../demo/demo-tools.js';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer, useLiteFromDisk } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';
import { GATEWAY_CHECKS } from './gateway-suite.js';
import type { ProxyEndpoint, ProxyTarget } from './proxy-suite.js';
import { PROXY_CHECKS } from './proxy-suite.js';
import type { UpstreamFixture } from './upstream-fixture.js';
import { startUpstreamFixture } from './upstream-fixture.js';

const TOKEN = 'node-proxy-token-0123456789abcdef';
const API_KEY = 'sk-node-proxy-upstream-key';

let upstream: UpstreamFixture;
const servers: RunningServer[] = [];
// Server-side reports (the dead-upstream server logs its refused connections here).
const serverErrors: unknown[] = [];
let target: ProxyTarget;

beforeAll(async () => {
  upstream = await startUpstreamFixture();
  const embedder = useLiteFromDisk('models/use-lite');
  if (!embedder) throw new Error('models/use-lite is missing: run npm run build:model');
  const start = async (vars: Record<string, string>, extra = {}): Promise<ProxyEndpoint> => {
    const server = await startNodeServer({
      ...optionsFromVars(vars),
      registry: registerDemoTools(new ToolRegistry()),
      port: 0,
      onError: (error: unknown) => serverErrors.push(error),
      ...extra,
    });
    servers.push(server);
    return { baseURL: server.url, fetch: (input, init) => fetch(input, init) };
  };
  const upstreams = {
    PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
    PROXY_ANTHROPIC_BASE_URL: upstream.anthropicBaseURL,
  };
  const api = await start(
    { LOOPCTL_TOKEN: TOKEN, MODEL_API_KEY: API_KEY, PROXY_ANTHROPIC_API_KEY: API_KEY, ...upstreams },
    { embedder },
  );
  const passthrough = await start({ PROXY_AUTH: 'passthrough', ...upstreams }, { embedder });
  const deadUpstream = await start({
    LOOPCTL_TOKEN: TOKEN,
    PROXY_OPENAI_BASE_URL: `${upstream.deadURL}/v1`,
    PROXY_ANTHROPIC_BASE_URL: upstream.deadURL,
  });
  const slow = await start({
    LOOPCTL_TOKEN: TOKEN,
    ...upstreams,
    PROXY_FIRST_BYTE_TIMEOUT_MS: '1500',
    PROXY_KEEPALIVE_MS: '300',
  });
  // Warm: model load and the 150-tool corpus, once (the suite measures behaviour, not cold starts).
  const warm = await fetch(`${api.baseURL}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted',
      messages: [{ role: 'user', content: 'warm up [[id:warm]]' }],
      tools: openAITools(wideToolSet()),
    }),
  });
  if (warm.status !== 200) throw new Error(`warm-up failed: ${warm.status} ${await warm.text()}`);
  target = {
    api,
    passthrough,
    deadUpstream,
    slow,
    token: TOKEN,
    upstreamKey: API_KEY,
    controlURL: upstream.controlURL,
    defaultSelector: 'hybrid',
    k: 8,
  };
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await upstream?.close();
});

describe('selecting proxy on Node, real clients', () => {
  for (const check of PROXY_CHECKS) it(check.name, () => check.run(target), 30_000);
});

describe('tool-search gateway on Node, real clients', () => {
  for (const check of GATEWAY_CHECKS) it(check.name, () => check.run(target), 30_000);
});

describe('proxy on Node with the hybrid default: prompts the encoder cannot read', () => {
  it('a Japanese prompt falls open to every tool, saying why, instead of forwarding unrelated ones', async () => {
    const response = await fetch(`${target.api.baseURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'scripted',
        messages: [{ role: 'user', content: '東京の今日と明日の天気を詳しく教えてください。 [[id:ja1]]' }],
        tools: openAITools(wideToolSet()),
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-loopctl-fell-open')).toMatch(/mostly outside the embedding model's vocabulary/);
    await response.text();
    const sent = (await (await fetch(`${upstream.controlURL}/requests?id=ja1`)).json()) as { tools: string[] }[];
    expect(sent[0]?.tools).toHaveLength(150);
  });
});
