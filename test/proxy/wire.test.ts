/**
 * Wire-level behaviour of the proxy on Node over real HTTP: SSE is streamed through without
 * buffering, the exact bytes survive (UTF-8 included), and every selector fault fails open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionsFromVars } from '../../src/hono/index.js';
import type { RunningServer } from '../../src/hono/node.js';
import { startNodeServer } from '../../src/hono/node.js';
import { ToolRegistry } from '../../src/index.js';
import type { NamedSelectorFactory } from '../../src/selector-kit.js';
import { openAITools, wideToolSet } from '../support/wide-tool-set.js';
import type { UpstreamFixture } from './upstream-fixture.js';
import { startUpstreamFixture } from './upstream-fixture.js';

const TOKEN = 'wire-proxy-token-0123456789abcdef';
const TOOLS = openAITools(wideToolSet());

let upstream: UpstreamFixture;
let server: RunningServer;
const logged: unknown[] = [];

/** What the recording selector was asked to rank. */
const seenQueries: string[] = [];

const selectors: Record<string, NamedSelectorFactory> = {
  recording: () => ({
    name: 'recording',
    select: (ctx, all) => {
      seenQueries.push(ctx.latestUserMessage ?? '');
      return all.slice(0, 2);
    },
  }),
  broken: () => ({
    name: 'broken',
    select: () => {
      throw new Error('boom in the selector');
    },
  }),
  nothing: () => ({ name: 'nothing', select: () => [] }),
  rejecting: () => Promise.reject(new Error('the model failed to load')),
  fabricating: () => ({ select: () => [{ name: 'not_a_tool', description: '', parameters: {} }] }),
};

beforeAll(async () => {
  upstream = await startUpstreamFixture();
  server = await startNodeServer({
    ...optionsFromVars({
      LOOPCTL_TOKEN: TOKEN,
      PROXY_OPENAI_BASE_URL: upstream.openAIBaseURL,
      PROXY_ANTHROPIC_BASE_URL: upstream.anthropicBaseURL,
    }),
    registry: new ToolRegistry(),
    selectors,
    port: 0,
    onError: (error: unknown) => logged.push(error),
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

function post(body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
  });
}

async function sentUpstream(id: string) {
  const response = await fetch(`${upstream.controlURL}/requests?id=${id}`);
  return (await response.json()) as { rawBase64: string; rawBody: string; tools: string[]; outcome: string | null }[];
}

describe('proxy on the wire', () => {
  it('streams SSE through as it arrives: the first event reaches the client before the upstream has finished', async () => {
    const response = await post(
      JSON.stringify({
        model: 'scripted',
        stream: true,
        messages: [{ role: 'user', content: 'weather in Oslo [[scenario:slow-stream]] [[id:sse1]]' }],
        tools: TOOLS,
      }),
    );
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^data: \{/);
    const [request] = await sentUpstream('sse1');
    expect(request?.outcome).toBeNull(); // still streaming upstream
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += new TextDecoder().decode(chunk.value);
    expect(`${first}${rest}`).toMatch(/data: \[DONE\]\n\n$/);
  });

  it('forwards the exact bytes: pretty-printed JSON with non-ASCII text, only tools narrowed', async () => {
    const text = `{\n  "model": "scripted",\n  "messages": [ { "role": "user", "content": "What is the weather in Zürich? ☔ [[id:bytes1]]" } ],\n  "tools": ${JSON.stringify(TOOLS, null, 1)},\n  "metadata": {"ü": 1.0}\n}`;
    const response = await post(text);
    expect(response.status).toBe(200);
    expect(response.headers.get('server-timing')).toMatch(/^loopctl;dur=\d+\.\d{2};desc="proxy before upstream"$/);
    await response.text();
    const [request] = await sentUpstream('bytes1');
    const received = Buffer.from(request!.rawBase64, 'base64').toString('utf8');
    expect(received.startsWith(text.slice(0, text.indexOf('"tools": ') + 9))).toBe(true);
    expect(received.endsWith(',\n  "metadata": {"ü": 1.0}\n}')).toBe(true);
    expect(request!.tools.length).toBeLessThan(150);
  });

  it.each([
    ['broken', /boom in the selector/],
    ['rejecting', /the model failed to load/],
  ])(
    'a selector fault (%s) fails open: every tool goes upstream, the reason in x-loopctl-fell-open',
    async (selector, reason) => {
      const id = `fault-${selector}`;
      const response = await post(
        JSON.stringify({
          model: 'scripted',
          messages: [{ role: 'user', content: `weather [[id:${id}]]` }],
          tools: TOOLS,
        }),
        {
          'x-loopctl-selector': selector,
        },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('x-loopctl-fell-open')).toMatch(reason);
      expect(response.headers.get('x-loopctl-advertised')).toBe('150');
      expect((await sentUpstream(id))[0]?.tools.length).toBe(150);
    },
  );

  it('a selection of only unknown tools, or an empty one, falls open rather than stranding the model', async () => {
    for (const [selector, choice] of [
      ['fabricating', 'auto'],
      ['nothing', 'required'],
      ['nothing', 'auto'],
    ] as const) {
      const id = `empty-${selector}-${choice}`;
      const response = await post(
        JSON.stringify({
          model: 'scripted',
          messages: [{ role: 'user', content: `weather [[id:${id}]]` }],
          tools: TOOLS,
          tool_choice: choice,
        }),
        { 'x-loopctl-selector': selector },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('x-loopctl-fell-open')).toBeTruthy();
      expect((await sentUpstream(id))[0]?.tools.length).toBe(150);
    }
  });

  it('a body sent without a content type is a 415 (a web page sends one without a preflight), and not forwarded', async () => {
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: new TextEncoder().encode(
        JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hi [[id:ctype1]]' }] }),
      ),
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unsupported_media_type');
    expect(upstream.requests.some((entry) => entry.rawBody.includes('[[id:ctype1]]'))).toBe(false);
  });

  it('an embedding selector named on a server without an embedder is a 400, not a fall-open', async () => {
    const response = await post(
      JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'hi' }], tools: TOOLS }),
      {
        'x-loopctl-selector': 'hybrid',
      },
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toMatchObject({ type: 'invalid_request_error', param: 'x-loopctl-selector' });
  });

  it('keys never appear in responses or logs', async () => {
    const response = await post('{"model":', { 'x-api-key': 'sk-secret-should-not-echo' });
    const text = await response.text();
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain('sk-secret');
    expect(JSON.stringify(logged.map(String))).not.toContain(TOKEN);
  });

  it('a 7 MiB prompt: the selector is asked about its head and tail, a few KiB, not the whole text', async () => {
    const head = 'Please check the weather in Oslo. ';
    const tail = ' Then email the summary to Ana. [[id:huge1]]';
    const prompt = `${head}${'lorem ipsum dolor sit amet '.repeat(Math.ceil((7 * 1024 * 1024) / 27))}${tail}`;
    const response = await post(
      JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: prompt }], tools: TOOLS }),
      {
        'x-loopctl-selector': 'recording',
        'x-loopctl-policy': 'narrow',
      },
    );
    expect(response.status).toBe(200);
    await response.text();
    const query = seenQueries.at(-1) ?? '';
    expect(query.length).toBeLessThanOrEqual(4097);
    expect(query.startsWith(head)).toBe(true);
    expect(query.endsWith(tail)).toBe(true);
    expect((await sentUpstream('huge1'))[0]?.tools).toHaveLength(2);
  });
});
