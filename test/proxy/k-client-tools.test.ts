/**
 * `x-loopctl-k` counts the client's tools: with `k: 3` the upstream gets three of the client's
 * tools, and the proxy's own `find_tools` (and, stable, `call_tool`) come on top, on every
 * protocol where the proxy searches. `narrow` offers no search, so it forwards exactly k.
 * Against the upstream fixture (the scripted model server over loopback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';
import { anthropicTools, openAITools, wideToolSet } from '../support/wide-tool-set.js';
import { startUpstreamFixture, toolNames, type UpstreamFixture } from './upstream-fixture.js';

let upstream: UpstreamFixture;
beforeAll(async () => {
  upstream = await startUpstreamFixture();
});
afterAll(async () => {
  await upstream?.close();
});

const TOOLS = wideToolSet();
const NAMES = new Set(TOOLS.map((tool) => tool.name));
// Many tools share these words, so bm25 has more than k matches to rank.
const PROMPT = 'Create an issue, send an email and list the files of the project';
const META = new Set(['find_tools', 'call_tool']);

function proxyApp() {
  return createApp({
    registry: new ToolRegistry(),
    proxy: {
      auth: 'passthrough',
      openaiBaseURL: upstream.openAIBaseURL,
      anthropicBaseURL: upstream.anthropicBaseURL,
      // Stable forwards a small registry whole; this one must be narrowed.
      minDeferredTokens: 1,
    },
  });
}

type Protocol = 'openai' | 'anthropic' | 'responses';

const PATHS: Record<Protocol, string> = {
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
  responses: '/v1/responses',
};

function requestBody(protocol: Protocol): unknown {
  if (protocol === 'anthropic')
    return { model: 'm', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }], tools: anthropicTools(TOOLS) };
  if (protocol === 'responses')
    return {
      model: 'm',
      input: PROMPT,
      tools: TOOLS.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
      })),
    };
  return { model: 'm', messages: [{ role: 'user', content: PROMPT }], tools: openAITools(TOOLS) };
}

/** One request through the proxy at `k`: the headers' report and the tools the upstream received. */
async function forwarded(protocol: Protocol, k: number, policy: string) {
  const app = proxyApp();
  const before = upstream.requests.length;
  const response = await app.request(PATHS[protocol], {
    method: 'POST',
    headers: {
      authorization: 'Bearer sk-test',
      'x-api-key': 'sk-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      'x-loopctl-selector': 'bm25',
      'x-loopctl-k': String(k),
      'x-loopctl-policy': policy,
    },
    body: JSON.stringify(requestBody(protocol)),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const sent = upstream.requests[before];
  const names = toolNames(sent?.json);
  return {
    policy: response.headers.get('x-loopctl-policy'),
    advertised: Number(response.headers.get('x-loopctl-advertised')),
    client: names.filter((name) => NAMES.has(name)),
    meta: names.filter((name) => META.has(name)),
  };
}

describe('x-loopctl-k counts the client tools kept', () => {
  it.each(['openai', 'anthropic', 'responses'] as const)(
    '%s per-message: k client tools, find_tools on top',
    async (protocol) => {
      const result = await forwarded(protocol, 3, 'per-message');
      expect(result.policy).toBe('per-message');
      expect(result.client).toHaveLength(3);
      expect(result.meta).toEqual(['find_tools']);
      expect(result.advertised).toBe(4);
    },
  );

  it.each(['openai', 'anthropic', 'responses'] as const)(
    '%s stable: k client tools, find_tools and call_tool on top',
    async (protocol) => {
      const result = await forwarded(protocol, 3, 'stable');
      expect(result.policy).toBe('stable');
      expect(result.client).toHaveLength(3);
      expect(result.meta).toEqual(['find_tools', 'call_tool']);
      expect(result.advertised).toBe(5);
    },
  );

  it('narrow offers no search: exactly k client tools', async () => {
    const result = await forwarded('openai', 3, 'narrow');
    expect(result.client).toHaveLength(3);
    expect(result.meta).toEqual([]);
    expect(result.advertised).toBe(3);
  });

  it('k: 1 keeps one client tool beside the search tool', async () => {
    const result = await forwarded('openai', 1, 'per-message');
    expect(result.client).toHaveLength(1);
    expect(result.meta).toEqual(['find_tools']);
  });
});
