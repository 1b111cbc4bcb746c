/**
 * The proxy learning from traffic, end to end over loopback (the upstream fixture): a tenant's
 * conversation that called a tool teaches the proxy, so a later prompt like it gets that tool
 * forwarded; another tenant's selection stays byte for byte what it was; with learning off,
 * nothing changes and no header is added.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/hono/index.js';
import { startNodeServer } from '../../src/hono/node.js';
import type { LearnedTrafficStore } from '../../src/hono/proxy/learn/traffic-store.js';
import { memoryTrafficStore } from '../../src/hono/proxy/learn/traffic-store.js';
import { ToolRegistry } from '../../src/index.js';
import { countingEmbedder, mapCache } from '../embed/counting-embedder.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';
import { startUpstreamFixture, toolNames, type UpstreamFixture } from './upstream-fixture.js';

let upstream: UpstreamFixture;
beforeAll(async () => {
  upstream = await startUpstreamFixture();
});
afterAll(async () => {
  await upstream?.close();
});

const TOOLS = wideToolSet();
// Nothing in these words points at the tool the tenant's model used.
const PROMPT = 'Sort out the usual thing for the Oslo office before Friday';
const LIKE_IT = 'Sort out the usual thing for the Oslo office before Monday';
const AGAIN = 'Sort out the usual thing for the Oslo office before Sunday';
const TAUGHT = 'twilio_create_SMS_message';
const OTHER = 'jira_list_issue';

function proxyApp(learn?: LearnedTrafficStore | 'on') {
  return createApp({
    registry: new ToolRegistry(),
    embedder: countingEmbedder(),
    cache: mapCache(),
    proxy: {
      auth: 'passthrough',
      openaiBaseURL: upstream.openAIBaseURL,
      selector: 'hybrid',
      policy: 'narrow',
      k: 3,
      ...(learn ? { learn } : {}),
    },
  });
}

type App = ReturnType<typeof proxyApp>;

/** One Chat Completions request; what the upstream received and the headers. */
async function send(app: App, key: string, messages: unknown[]) {
  const before = upstream.requests.length;
  const response = await app.request('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages, tools: openAITools(TOOLS) }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const sent = upstream.requests[before];
  return { headers: response.headers, forwarded: toolNames(sent?.json), raw: sent?.rawBody ?? '' };
}

const ask = (text: string) => [{ role: 'user', content: text }];
/** The prompt, the model's call of `tool`, its result: what a client sends on the next turn. */
const answered = (text: string, tool: string, result = '{"ok": true}') => [
  { role: 'user', content: text },
  { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: tool, arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'c1', content: result },
];

/** Send until the learned copy is built (it is built in the background), at most ~2 s. */
async function untilLearned(app: App, key: string, text: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const result = await send(app, key, ask(text));
    if (Number(result.headers.get('x-loopctl-learned')) > 0) return result;
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error('the proxy never ranked with a learned selector');
}

describe('learning from traffic', () => {
  it('teaches tools of the set', () => {
    const names = new Set(TOOLS.map((tool) => tool.name));
    expect(names.has(TAUGHT) && names.has(OTHER)).toBe(true);
  });

  it("a tenant's traffic brings the tool its model used to a prompt like it", async () => {
    const app = proxyApp('on');
    const before = await send(app, 'sk-a', ask(LIKE_IT));
    expect(before.headers.get('x-loopctl-learned')).toBe('0');
    expect(before.forwarded).not.toContain(TAUGHT);

    // Two conversations that agree: one near example alone does not vote (learned.agreement).
    await send(app, 'sk-a', answered(PROMPT, TAUGHT));
    await send(app, 'sk-a', answered(AGAIN, TAUGHT));
    let after = await untilLearned(app, 'sk-a', LIKE_IT);
    for (let attempt = 0; attempt < 100 && after.headers.get('x-loopctl-learned') !== '2'; attempt++) {
      await new Promise((done) => setTimeout(done, 20));
      after = await send(app, 'sk-a', ask(LIKE_IT));
    }
    expect(after.forwarded).toContain(TAUGHT);
    expect(after.headers.get('x-loopctl-learned')).toBe('2');
  });

  it('ranks a prompt unlike every example exactly as without learning', async () => {
    const unlike = ask('Create a Jira issue and email Priya about the invoice');
    const plain = await send(proxyApp(), 'sk-a', unlike);
    const app = proxyApp('on');
    await send(app, 'sk-a', answered(PROMPT, TAUGHT));
    await untilLearned(app, 'sk-a', LIKE_IT);
    const after = await send(app, 'sk-a', unlike);
    expect(after.headers.get('x-loopctl-learned')).toBe('0');
    expect(after.raw).toBe(plain.raw);
  });

  it('learns nothing from a call whose result is an error', async () => {
    const store = memoryTrafficStore();
    const app = proxyApp(store);
    await send(app, 'sk-a', answered(PROMPT, TAUGHT, 'Error: the SMS gateway refused'));
    await send(app, 'sk-a', answered(PROMPT, OTHER));
    await new Promise((done) => setTimeout(done, 50));
    const learned = Object.values(await store.list(await tenantOfKey('sk-a'))).flat();
    expect(learned.map((example) => example.tools)).toEqual([[OTHER]]);
  });

  it('learns from a request whose tool list alone is over a mebibyte (a large registry)', async () => {
    const store = memoryTrafficStore();
    const app = proxyApp(store);
    // bfcl's 1,857 tools are 1.15 MB of JSON: the conversation, not the body, is what is bounded.
    const padded = openAITools(TOOLS).map((tool, i) =>
      i === 0 ? { ...tool, function: { ...tool.function, description: 'x'.repeat(1.2 * (1 << 20)) } } : tool,
    );
    const response = await app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: 'Bearer sk-a', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: answered(PROMPT, TAUGHT), tools: padded }),
    });
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    let learned: { tools: readonly string[] }[] = [];
    for (let attempt = 0; attempt < 50 && learned.length === 0; attempt++) {
      await new Promise((done) => setTimeout(done, 20));
      learned = Object.values(await store.list(await tenantOfKey('sk-a'))).flat();
    }
    expect(learned.map((example) => example.tools)).toEqual([[TAUGHT]]);
  });

  it("one tenant's traffic leaves another's forwarded request byte for byte", async () => {
    const app = proxyApp('on');
    const before = await send(app, 'sk-b', ask(LIKE_IT));
    for (let n = 0; n < 20; n++) await send(app, 'sk-a', answered(`${PROMPT} (${n})`, TAUGHT));
    await untilLearned(app, 'sk-a', LIKE_IT);
    const after = await send(app, 'sk-b', ask(LIKE_IT));
    expect(after.raw).toBe(before.raw);
    expect(after.headers.get('x-loopctl-learned')).toBe('0');
  });

  it('off by default: the same traffic changes nothing and adds no header', async () => {
    const app = proxyApp();
    const before = await send(app, 'sk-a', ask(LIKE_IT));
    await send(app, 'sk-a', answered(PROMPT, TAUGHT));
    await new Promise((done) => setTimeout(done, 50));
    const after = await send(app, 'sk-a', ask(LIKE_IT));
    expect(after.raw).toBe(before.raw);
    expect(after.headers.get('x-loopctl-learned')).toBeNull();
    expect([...after.headers.keys()].filter((name) => name.includes('learn'))).toEqual([]);
  });

  it('a failing store fails open: the request is ranked unlearned and told why', async () => {
    const failing: LearnedTrafficStore = {
      add: () => Promise.reject(new Error('store down')),
      snapshot: () => Promise.reject(new Error('store down')),
      list: () => Promise.reject(new Error('store down')),
      forget: () => Promise.reject(new Error('store down')),
    };
    const plain = await send(proxyApp(), 'sk-a', ask(LIKE_IT));
    const result = await send(proxyApp(failing), 'sk-a', ask(LIKE_IT));
    expect(result.raw).toBe(plain.raw);
    expect(result.headers.get('x-loopctl-degraded')).toMatch(/ranked unlearned: store down/);
  });
});

describe('/v1/learned', () => {
  const call = (app: App, method: string, key?: string) =>
    app.request('/v1/learned', { method, headers: key ? { authorization: `Bearer ${key}` } : {} });

  it("shows the caller's own examples, and forgets them on request", async () => {
    const app = proxyApp('on');
    await send(app, 'sk-a', answered(PROMPT, TAUGHT));
    await send(app, 'sk-b', answered('Play something calm', OTHER));
    await new Promise((done) => setTimeout(done, 50));
    const mine = (await (await call(app, 'GET', 'sk-a')).json()) as { count: number; examples: { query: string }[] };
    expect(mine.count).toBe(1);
    expect(mine.examples.map((example) => example.query)).toEqual([PROMPT]);
    expect(JSON.stringify(mine)).not.toContain('sk-a');

    const forgotten = await call(app, 'DELETE', 'sk-a');
    expect(await forgotten.json()).toEqual({ forgotten: 1 });
    expect(((await (await call(app, 'GET', 'sk-a')).json()) as { count: number }).count).toBe(0);
    expect(((await (await call(app, 'GET', 'sk-b')).json()) as { count: number }).count).toBe(1);
  });

  it('needs a credential, and is not served with learning off', async () => {
    expect((await call(proxyApp('on'), 'GET')).status).toBe(401);
    expect((await call(proxyApp(), 'GET', 'sk-a')).status).not.toBe(200);
  });
});

describe('the Node entry', () => {
  it('keeps what it learned across a restart (PROXY_LEARN_DIR)', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'loopctl-learned-'));
    const vars = {
      PROXY_LEARN: 'on',
      PROXY_LEARN_DIR: folder,
      PROXY_AUTH: 'passthrough',
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      // No embedder here; a selector that ranks the prompt (a request that fell open teaches nothing).
      PROXY_SELECTOR: 'bm25',
    };
    const start = () => startNodeServer({ registry: new ToolRegistry(), vars, port: 0 });
    try {
      const first = await start();
      const body = JSON.stringify({ model: 'm', messages: answered(PROMPT, TAUGHT), tools: openAITools(TOOLS) });
      const headers = { authorization: 'Bearer sk-a', 'content-type': 'application/json' };
      const taught = await fetch(`${first.url}/v1/chat/completions`, { method: 'POST', headers, body });
      expect(taught.status).toBe(200);
      await taught.arrayBuffer();
      await new Promise((done) => setTimeout(done, 100));
      await first.close();

      const second = await start();
      try {
        const listed = await fetch(`${second.url}/v1/learned`, { headers });
        const answer = (await listed.json()) as { examples: { query: string; tools: string[] }[] };
        expect(answer.examples.map(({ query, tools }) => ({ query, tools }))).toEqual([
          { query: PROMPT, tools: [TAUGHT] },
        ]);
      } finally {
        await second.close();
      }
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

async function tenantOfKey(key: string): Promise<string> {
  const { tenantOf } = await import('../../src/hono/proxy/learn/tenant-id.js');
  return tenantOf(new Headers({ authorization: `Bearer ${key}` }), 'passthrough', '');
}
