/**
 * The cache promise under every breakpoint placement a client uses: whichever `cache_control`
 * breakpoints an Anthropic client sets (only on the last tool, only on the system prompt, only
 * on the last message, at the top level, several), `auto` resolves to `stable` on every request
 * of the session, and the forwarded `tools` bytes never change. A warm request (its tools text
 * already parsed, see tool-set-cache.ts) must see a breakpoint on the tools as a cold one does.
 * Against the upstream fixture (the scripted model server over loopback).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/hono/index.js';
import { ToolRegistry } from '../../src/index.js';
import { anthropicTools, wideToolSet } from '../support/wide-tool-set.js';
import { startUpstreamFixture, type UpstreamFixture } from './upstream-fixture.js';

let upstream: UpstreamFixture;
beforeAll(async () => {
  upstream = await startUpstreamFixture();
});
afterAll(async () => {
  await upstream?.close();
});

type Json = Record<string, unknown>;
type Placement = 'tools' | 'system' | 'last message' | 'top level' | 'several';

const BREAKPOINT = { type: 'ephemeral' };
const PROMPTS = [
  'What is the weather in Oslo right now?',
  'Send an email to Ana about the invoice',
  'Create a Jira issue for the outage',
  'List the files in the project folder',
];

function session(placement: Placement, systemText = 'You are terse.'): Json[] {
  const tools = anthropicTools(wideToolSet()) as Json[];
  if (placement === 'tools' || placement === 'several')
    tools[tools.length - 1] = { ...tools[tools.length - 1], cache_control: BREAKPOINT };
  const system = [
    {
      type: 'text',
      text: systemText,
      ...(placement === 'system' || placement === 'several' ? { cache_control: BREAKPOINT } : {}),
    },
  ];
  const messages: Json[] = [];
  return PROMPTS.map((prompt, turn) => {
    if (turn > 0) messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    messages.push({ role: 'user', content: [{ type: 'text', text: prompt }] });
    const marked =
      placement === 'last message' || placement === 'several'
        ? messages.map((message, i) =>
            i === messages.length - 1
              ? { ...message, content: [{ ...((message.content as Json[])[0] as Json), cache_control: BREAKPOINT }] }
              : message,
          )
        : [...messages];
    return {
      model: 'm',
      max_tokens: 64,
      system,
      messages: marked,
      tools,
      ...(placement === 'top level' ? { cache_control: BREAKPOINT } : {}),
    };
  });
}

async function send(app: ReturnType<typeof createApp>, body: Json): Promise<Response> {
  const response = await app.request('/v1/messages', {
    method: 'POST',
    headers: {
      'x-api-key': 'sk-test',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
      'x-loopctl-selector': 'bm25',
    },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  return response;
}

describe('auto resolves the same on every request of a session, wherever the breakpoint sits', () => {
  it.each(['tools', 'system', 'last message', 'top level', 'several'] as const)(
    'breakpoint on %s: stable on every request, the same forwarded tools',
    async (placement) => {
      // One app for the session: its tool-set cache turns every request after the first warm.
      const app = createApp({
        registry: new ToolRegistry(),
        proxy: { auth: 'passthrough', anthropicBaseURL: upstream.anthropicBaseURL, minDeferredTokens: 1 },
      });
      const policies: (string | null)[] = [];
      const forwardedTools: string[] = [];
      for (const body of session(placement)) {
        const before = upstream.requests.length;
        const response = await send(app, body);
        policies.push(response.headers.get('x-loopctl-policy'));
        forwardedTools.push(JSON.stringify(((upstream.requests[before]?.json ?? {}) as Json).tools));
      }
      expect(policies).toEqual(PROMPTS.map(() => 'stable'));
      expect(new Set(forwardedTools).size).toBe(1);
    },
  );
});

describe('stable lists the latest selection at the tail where a search round would be read at full price', () => {
  // About 2,500 tokens of conversation: short of the 16 k a cached conversation waits for.
  const system = `You operate the user's tools. ${'Answer briefly and call a tool when one is needed. '.repeat(180)}`;

  it.each([
    ['tools', true],
    ['system', true],
    ['last message', false],
    ['several', false],
  ] as const)('breakpoints on %s: listed %s', async (placement, listed) => {
    const app = createApp({
      registry: new ToolRegistry(),
      proxy: { auth: 'passthrough', anthropicBaseURL: upstream.anthropicBaseURL, minDeferredTokens: 1 },
    });
    const [first, second] = session(placement, system);
    await send(app, first as Json);
    // The second user message (an email) selects tools the first one (the weather) did not load.
    const response = await send(app, second as Json);
    expect(response.headers.get('x-loopctl-policy')).toBe('stable');
    if (listed) expect(Number(response.headers.get('x-loopctl-revealed'))).toBeGreaterThan(0);
    else expect(response.headers.get('x-loopctl-revealed')).toBeNull();
  });
});
