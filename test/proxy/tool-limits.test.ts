/**
 * The work and storage one client can cause through the proxy: tools per request, new tool
 * lists embedded (and written to the vector cache) per client and in all, and the embedding
 * one request can cost. Against the upstream fixture (the scripted model server over loopback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/hono/index.js';
import { proxySettingsFromVars } from '../../src/hono/proxy/proxy-env.js';
import { ToolRegistry } from '../../src/index.js';
import { type CountingEmbedder, countingEmbedder, mapCache } from '../embed/counting-embedder.js';
import { startUpstreamFixture, type UpstreamFixture } from './upstream-fixture.js';

let upstream: UpstreamFixture;
beforeAll(async () => {
  upstream = await startUpstreamFixture();
});
afterAll(async () => {
  await upstream?.close();
});

const TOPICS = ['weather', 'email', 'calendar', 'files', 'payments', 'search', 'maps', 'notes', 'music', 'photos'];

/** A list of `count` tools, distinct per `variant` (so each variant is a new tool list). */
function toolList(variant: string, count = 10): unknown[] {
  return Array.from({ length: count }, (_, i) => ({
    type: 'function',
    function: {
      name: `${TOPICS[i % TOPICS.length]}_${variant}_${i}`,
      description: `Work with ${TOPICS[i % TOPICS.length]} (${variant}).`,
      parameters: { type: 'object', properties: {} },
    },
  }));
}

function chat(tools: unknown[], key: string) {
  return {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'x-loopctl-selector': 'hybrid',
      'x-loopctl-policy': 'narrow',
      'x-loopctl-k': '3',
    },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'What is the weather?' }], tools }),
  };
}

function corpusTexts(embedder: CountingEmbedder, variant: string): number {
  return embedder.texts.filter((text) => text.includes(`(${variant})`)).length;
}

function proxyApp(proxy: Record<string, unknown>, embedder = countingEmbedder(), cache = mapCache()) {
  const app = createApp({
    registry: new ToolRegistry(),
    embedder,
    cache,
    proxy: { auth: 'passthrough', openaiBaseURL: upstream.openAIBaseURL, ...proxy },
  });
  return { app, embedder, cache };
}

describe('tools per request', () => {
  it('a request listing more tools than maxTools is a 400 in the provider shape, not forwarded', async () => {
    const { app } = proxyApp({ maxTools: 25 });
    const before = upstream.requests.length;
    const response = await app.request('/v1/chat/completions', chat(toolList('wide', 26), 'sk-a'));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; param: string } };
    expect(body.error.message).toMatch(/26 tools; this proxy takes at most 25 \(PROXY_MAX_TOOLS\)/);
    expect(body.error.param).toBe('tools');
    expect(upstream.requests.length).toBe(before);
    expect((await app.request('/v1/chat/completions', chat(toolList('fits', 25), 'sk-a'))).status).toBe(200);
  });

  it('defaults to 10000 and reads PROXY_MAX_TOOLS', () => {
    expect(proxySettingsFromVars({ PROXY_MAX_TOOLS: '300' }).maxTools).toBe(300);
    expect(() => proxySettingsFromVars({ PROXY_MAX_TOOLS: '0' })).toThrow(/PROXY_MAX_TOOLS/);
    expect(() => proxySettingsFromVars({ PROXY_NEW_TOOL_SETS_PER_CLIENT: 'many' })).toThrow(/positive integer/);
  });
});

describe('new tool lists per client', () => {
  it("past a client's budget, its new lists are ranked lexically: no embedding, no cache write", async () => {
    const { app, embedder, cache } = proxyApp({ newToolSetsPerClient: 2, newToolSetsTotal: 100 });
    for (const variant of ['one', 'two']) {
      const response = await app.request('/v1/chat/completions', chat(toolList(variant), 'sk-a'));
      expect(response.status).toBe(200);
      expect(response.headers.get('x-loopctl-degraded')).toBeNull();
      expect(corpusTexts(embedder, variant)).toBe(10);
    }
    expect(cache.sets).toBe(2);

    const third = await app.request('/v1/chat/completions', chat(toolList('three'), 'sk-a'));
    expect(third.status).toBe(200);
    expect(third.headers.get('x-loopctl-degraded')).toMatch(/ranked with bm25: this client's budget of 2 new tool/);
    expect(Number(third.headers.get('x-loopctl-advertised'))).toBeLessThan(10); // still narrowed
    expect(third.headers.get('x-loopctl-fell-open')).toBeNull();
    expect(corpusTexts(embedder, 'three')).toBe(0);
    expect(cache.sets).toBe(2);

    // A list already paid for is not charged again; another client has its own budget.
    const again = await app.request('/v1/chat/completions', chat(toolList('one'), 'sk-a'));
    expect(again.headers.get('x-loopctl-degraded')).toBeNull();
    const other = await app.request('/v1/chat/completions', chat(toolList('four'), 'sk-b'));
    expect(other.headers.get('x-loopctl-degraded')).toBeNull();
    expect(corpusTexts(embedder, 'four')).toBe(10);
  });

  it('the total budget bounds every client together (made-up keys cannot buy more)', async () => {
    const { app, embedder } = proxyApp({ newToolSetsPerClient: 5, newToolSetsTotal: 3 });
    const degraded: (string | null)[] = [];
    for (const [i, variant] of ['t1', 't2', 't3', 't4', 't5'].entries()) {
      const response = await app.request('/v1/chat/completions', chat(toolList(variant), `sk-made-up-${i}`));
      degraded.push(response.headers.get('x-loopctl-degraded'));
    }
    expect(degraded.slice(0, 3)).toEqual([null, null, null]);
    expect(degraded[3]).toMatch(/this server's budget of 3 new tool lists an hour is spent/);
    expect(corpusTexts(embedder, 't4') + corpusTexts(embedder, 't5')).toBe(0);
  });
});

describe('embedding per request', () => {
  it('a new list bigger than maxNewEmbeds is embedded over several requests, ranked lexically meanwhile', async () => {
    const embedder = countingEmbedder();
    const app = createApp({
      registry: new ToolRegistry(),
      embedder,
      maxNewEmbeds: 8,
      proxy: { auth: 'passthrough', openaiBaseURL: upstream.openAIBaseURL },
    });
    const tools = toolList('big', 20);
    const embeddedAfter: number[] = [];
    const warnings: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await app.request('/v1/chat/completions', chat(tools, 'sk-a'));
      warnings.push(response.headers.get('x-loopctl-warning'));
      expect(response.status).toBe(200);
      expect(Number(response.headers.get('x-loopctl-advertised'))).toBeLessThan(20); // narrowed throughout
      expect(response.headers.get('x-loopctl-fell-open')).toBeNull();
      embeddedAfter.push(corpusTexts(embedder, 'big'));
    }
    expect(embeddedAfter).toEqual([8, 16, 20]);
    expect(warnings[0]).toMatch(/lexical half only.*12 of 20 tool texts left to embed \(8 a request\)/);
    expect(warnings[1]).toMatch(/4 of 12 tool texts left to embed/);
    expect(warnings[2]).toBeNull();
  });
});

describe('the shared budget (a Durable Object)', () => {
  it('an unreachable budget object ranks lexically and says why (nothing embedded, nothing written)', async () => {
    const { durableToolSetBudget } = await import('../../src/hono/index.js');
    const unreachable = {
      idFromName: () => 'id',
      get: () => ({
        fetch: async (): Promise<Response> => {
          throw new Error('network connection lost');
        },
      }),
    };
    const { app, embedder, cache } = proxyApp({ toolSetBudget: durableToolSetBudget(unreachable) });
    const response = await app.request('/v1/chat/completions', chat(toolList('down'), 'sk-a'));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-loopctl-degraded')).toMatch(
      /the shared budget of new tool lists could not be reached \(network connection lost\)/,
    );
    expect(corpusTexts(embedder, 'down')).toBe(0);
    expect(cache.sets).toBe(0);
  });

  it('the object keeps one ledger in its storage and refuses bad requests', async () => {
    const { ToolSetBudgetObject } = await import('../../src/hono/index.js');
    const stored = new Map<string, unknown>();
    const storage = {
      get: async (key: string) => stored.get(key),
      put: async (entries: Record<string, unknown>) => {
        for (const [key, value] of Object.entries(entries)) stored.set(key, value);
      },
      deleteAll: async () => stored.clear(),
    };
    const take = async (object: InstanceType<typeof ToolSetBudgetObject>, client: unknown) =>
      object.fetch(
        new Request('https://x/take', {
          method: 'POST',
          body: JSON.stringify({ client, limits: { perClient: 1, total: 5, windowMs: 60_000 } }),
        }),
      );
    const first = new ToolSetBudgetObject({ storage });
    expect(await (await take(first, 'a')).json()).toEqual({ refused: null });
    // A restarted object reads the same storage: the client's one list is spent.
    const restarted = new ToolSetBudgetObject({ storage });
    expect(((await (await take(restarted, 'a')).json()) as { refused: string }).refused).toMatch(/budget of 1/);
    expect((await take(restarted, 42)).status).toBe(400);
  });
});
