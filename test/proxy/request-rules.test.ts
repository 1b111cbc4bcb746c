/**
 * The proxy's request rules as pure functions: byte-for-byte splicing of the `tools` array,
 * the selection query (the spec's selection-context rules), the keep set, the cache_control
 * move, and the per-request controls.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/hono/config-vars.js';
import { breakpointMove } from '../../src/hono/proxy/cache-breakpoint.js';
import { forwardBody } from '../../src/hono/proxy/forward-body.js';
import { clientHeaders, upstreamHeaders } from '../../src/hono/proxy/forward-headers.js';
import { keepSet } from '../../src/hono/proxy/keep-set.js';
import { anthropicUpstream, openAIUpstream } from '../../src/hono/proxy/protocols/index.js';
import { tokenVerifier } from '../../src/hono/proxy/proxy-auth.js';
import { proxyControls } from '../../src/hono/proxy/proxy-controls.js';
import { proxySettingsFromVars } from '../../src/hono/proxy/proxy-env.js';
import { type ProxyRequestError, parseProxyRequest } from '../../src/hono/proxy/proxy-request.js';
import { readBodyText } from '../../src/hono/proxy/read-body.js';

const PRETTY = `{
  "model" : "gpt-x",
  "temperature": 1.0,
  "tools": [
    {"type":"function","function":{"name":"a_tool","description":"Has \\"quotes\\", [brackets] and {braces} \\\\","parameters":{"type":"object"}}},
    { "type": "function", "function": { "name": "b_tool", "description": "caf\\u00e9 ☕", "parameters": {} } } ,
    {"type":"function","function":{"name":"c_tool","parameters":{"type":"object","properties":{"n":{"type":"number","default":1e3}}}}}
  ],
  "messages": [{"role":"user","content":"Use b"}],
  "x_unknown": {"keep": [1.50, true, null]}
}`;

describe('forwarded body', () => {
  it('rewrites only the tools array; every other byte survives (whitespace, escapes, number spelling, unknown fields)', () => {
    const request = parseProxyRequest('openai', PRETTY);
    expect(request.tools.map((tool) => tool.name)).toEqual(['a_tool', 'b_tool', 'c_tool']);
    const body = forwardBody(request, [0, 2]);
    const start = PRETTY.indexOf('[\n    {');
    const end = PRETTY.indexOf('\n  ],') + 4;
    const entryA = PRETTY.slice(
      PRETTY.indexOf('{"type":"function","function":{"name":"a_tool"'),
      PRETTY.indexOf(',\n    { "type"'),
    );
    const entryC = PRETTY.slice(
      PRETTY.indexOf('{"type":"function","function":{"name":"c_tool"'),
      PRETTY.indexOf('\n  ],'),
    );
    expect(body).toBe(`${PRETTY.slice(0, start)}[${entryA},${entryC}]${PRETTY.slice(end)}`);
    expect(body).toContain('"temperature": 1.0');
    expect(body).toContain('"default":1e3');
    expect(body).toContain('"x_unknown": {"keep": [1.50, true, null]}');
    expect(JSON.parse(body).tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
      'a_tool',
      'c_tool',
    ]);
  });

  it('keeps the original text when every tool is kept', () => {
    const request = parseProxyRequest('openai', PRETTY);
    expect(forwardBody(request, [0, 1, 2])).toBe(PRETTY);
  });

  it("moves a removed tool's cache_control to the last kept tool, appended to its own text", () => {
    const text = JSON.stringify({
      model: 'claude',
      tools: [
        { name: 'one', input_schema: { type: 'object' } },
        { name: 'two', input_schema: { type: 'object' } },
        { name: 'three', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '5m' } },
      ],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }],
    });
    const request = parseProxyRequest('anthropic', text);
    const move = breakpointMove(request.tools, [0, 1]);
    expect(move).toEqual({ to: 1, cacheControl: { type: 'ephemeral', ttl: '5m' } });
    const body = JSON.parse(forwardBody(request, [0, 1], move));
    expect(body.tools).toEqual([
      { name: 'one', input_schema: { type: 'object' } },
      { name: 'two', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '5m' } },
    ]);
    expect(body.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' });
    // Kept breakpoint tool, or no removed breakpoint: nothing moves.
    expect(breakpointMove(request.tools, [0, 2])).toBeUndefined();
    expect(breakpointMove(request.tools.slice(0, 2), [0])).toBeUndefined();
  });

  it('refuses malformed input with a 400 naming the field', () => {
    const refusal = (protocol: 'openai' | 'anthropic', text: string) => {
      try {
        parseProxyRequest(protocol, text);
      } catch (error) {
        return error as ProxyRequestError;
      }
      throw new Error('accepted');
    };
    expect(refusal('openai', '{"tools": [').status).toBe(400);
    expect(refusal('openai', '[1,2]').message).toMatch(/JSON object/);
    expect(refusal('openai', '{"tools": {"a": 1}}').param).toBe('tools');
    expect(refusal('openai', '{"tools": [{"type": "function", "function": {"description": "x"}}]}').param).toBe(
      'tools[0].function.name',
    );
    expect(refusal('anthropic', '{"tools": [{"input_schema": {}}]}').param).toBe('tools.0.name');
    expect(
      refusal('anthropic', '{"tools": [{"name": "x", "input_schema": {}}, {"name": "x", "input_schema": {}}]}').message,
    ).toMatch(/duplicate/);
  });
});

describe('selection query (latest user text)', () => {
  it('OpenAI: the latest user message with text; tool results and assistant text never count', () => {
    const request = parseProxyRequest(
      'openai',
      JSON.stringify({
        messages: [
          { role: 'system', content: 'You are a weather bot.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Email Ana' },
              { type: 'text', text: 'about the invoice' },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'send_email', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c1', content: 'The weather in Oslo is sunny.' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c2', type: 'function', function: { name: 'read_email', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'c2', content: 'ok' },
        ],
      }),
    );
    expect(request.query).toBe('Email Ana\nabout the invoice');
    expect(request.turn).toBe(3);
    expect([...request.called]).toEqual(['send_email', 'read_email']);
    expect(request.conversation.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
  });

  it('OpenAI: an image-only user message is skipped for the earlier prompt', () => {
    const request = parseProxyRequest(
      'openai',
      JSON.stringify({
        messages: [
          { role: 'user', content: 'Translate this sign' },
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        ],
      }),
    );
    expect(request.query).toBe('Translate this sign');
  });

  it('Anthropic: a user message of tool_result blocks is a continuation, not a prompt', () => {
    const request = parseProxyRequest(
      'anthropic',
      JSON.stringify({
        system: [{ type: 'text', text: 'Call tools about deployments.' }],
        messages: [
          { role: 'user', content: 'Create a Notion page' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'notion_create_page', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'deploy the service' }] },
            ],
          },
        ],
        tool_choice: { type: 'any' },
      }),
    );
    expect(request.query).toBe('Create a Notion page');
    expect(request.turn).toBe(2);
    expect([...request.called]).toEqual(['notion_create_page']);
    expect(request.toolChoice).toEqual({ kind: 'required' });
  });

  it('no user text at all: no query (selectors then fall open)', () => {
    expect(parseProxyRequest('anthropic', JSON.stringify({ messages: [] })).query).toBeUndefined();
  });
});

describe('keep set', () => {
  const request = parseProxyRequest(
    'anthropic',
    JSON.stringify({
      tools: [
        { name: 'a', input_schema: { type: 'object' } },
        { name: 'b', input_schema: { type: 'object' } },
        { type: 'web_search_20250305', name: 'web_search' },
        { name: 'c', input_schema: { type: 'object' } },
      ],
    }),
  );
  const { tools } = request;

  it('selected, forced, called and server tools stay, in the client order', () => {
    expect(keepSet(tools, new Set(['c']), { kind: 'auto' }, new Set()).kept).toEqual([2, 3]);
    expect(keepSet(tools, new Set(['c']), { kind: 'named', names: ['a'], required: true }, new Set()).kept).toEqual([
      0, 2, 3,
    ]);
    expect(keepSet(tools, new Set(['c']), { kind: 'auto' }, new Set(['b'])).kept).toEqual([1, 2, 3]);
  });

  it('"required"/"any" with an empty selection falls open; so does an empty keep set', () => {
    expect(keepSet(tools, new Set(), { kind: 'required' }, new Set())).toEqual({
      kept: [0, 1, 2, 3],
      fellOpen: expect.stringMatching(/tool_choice/),
    });
    const plain = tools.filter((tool) => tool.selectable);
    expect(keepSet(plain, new Set(), { kind: 'auto' }, new Set())).toEqual({
      kept: [0, 1, 2],
      fellOpen: 'the selection was empty',
    });
  });
});

describe('controls and configuration', () => {
  const defaults = { names: ['keyword', 'bm25', 'hybrid'], selector: 'keyword', k: 8 };
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it('reads x-loopctl-selector, x-loopctl-k and x-loopctl-bypass', () => {
    expect(proxyControls(headers({}), defaults)).toEqual({
      selector: 'keyword',
      explicitSelector: false,
      k: 8,
      policy: 'auto',
      bypass: false,
    });
    expect(
      proxyControls(
        headers({
          'x-loopctl-selector': 'bm25',
          'x-loopctl-k': ' 5 ',
          'x-loopctl-bypass': '1',
          'x-loopctl-policy': 'Stable',
        }),
        defaults,
      ),
    ).toEqual({
      selector: 'bm25',
      explicitSelector: true,
      k: 5,
      policy: 'stable',
      bypass: true,
    });
    expect(() => proxyControls(headers({ 'x-loopctl-policy': 'cheapest' }), defaults)).toThrow(
      /x-loopctl-policy must be one of auto, stable, per-message, narrow/,
    );
  });

  it.each([['0'], ['65'], ['1.5'], ['-3'], ['eight'], ['']])('refuses x-loopctl-k %j', (value) => {
    expect(() => proxyControls(headers({ 'x-loopctl-k': value }), defaults)).toThrow(
      /x-loopctl-k must be an integer from 1 to 64/,
    );
  });

  it('refuses an unknown selector and an odd bypass value', () => {
    expect(() => proxyControls(headers({ 'x-loopctl-selector': 'magic' }), defaults)).toThrow(
      /unknown selector "magic"/,
    );
    expect(() => proxyControls(headers({ 'x-loopctl-bypass': 'yes' }), defaults)).toThrow(/x-loopctl-bypass/);
  });

  it('reads PROXY_* variables and refuses bad ones', () => {
    expect(proxySettingsFromVars({ PROXY_K: '6', PROXY_AUTH: 'passthrough', PROXY_SELECTOR: 'bm25' })).toEqual({
      k: 6,
      auth: 'passthrough',
      selector: 'bm25',
    });
    expect(() => proxySettingsFromVars({ PROXY_K: '0' })).toThrow(ConfigError);
    expect(() => proxySettingsFromVars({ PROXY_AUTH: 'open' })).toThrow(ConfigError);
    expect(() => proxySettingsFromVars({ PROXY_OPENAI_BASE_URL: 'ftp://x' })).toThrow(ConfigError);
    expect(
      proxySettingsFromVars({
        PROXY_POLICY: 'per-message',
        PROXY_PREFIX_CACHE: 'on',
        PROXY_FIRST_BYTE_TIMEOUT_MS: '0',
        PROXY_KEEPALIVE_MS: '2500',
      }),
    ).toEqual({ policy: 'per-message', prefixCache: 'on', firstByteTimeoutMs: 0, keepAliveMs: 2500 });
    expect(() => proxySettingsFromVars({ PROXY_POLICY: 'cheap' })).toThrow(/PROXY_POLICY/);
    expect(() => proxySettingsFromVars({ PROXY_PREFIX_CACHE: 'yes' })).toThrow(/PROXY_PREFIX_CACHE/);
    expect(() => proxySettingsFromVars({ PROXY_KEEPALIVE_MS: '0' })).toThrow(/PROXY_KEEPALIVE_MS/);
    expect(() => proxySettingsFromVars({ PROXY_FIRST_BYTE_TIMEOUT_MS: 'soon' })).toThrow(/PROXY_FIRST_BYTE_TIMEOUT_MS/);
  });
});

describe('headers', () => {
  const incoming = new Headers({
    authorization: 'Bearer proxy-token',
    'x-api-key': 'proxy-token',
    'anthropic-version': '2023-06-01',
    'anthropic-beta': 'prompt-caching-2024-07-31',
    'x-loopctl-k': '4',
    'x-stainless-lang': 'js',
    connection: 'keep-alive',
    'accept-encoding': 'gzip',
    'x-forwarded-for': '10.0.0.1',
    'cf-connecting-ip': '10.0.0.1',
    'content-length': '123',
  });

  it('token mode: the client credentials are replaced by the server key; controls and hop-by-hop headers stay behind', () => {
    const sent = Object.fromEntries(upstreamHeaders(incoming, anthropicUpstream, 'token', 'sk-upstream'));
    expect(sent).toEqual({
      'x-api-key': 'sk-upstream',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'prompt-caching-2024-07-31',
      'x-stainless-lang': 'js',
    });
    expect(Object.fromEntries(upstreamHeaders(incoming, openAIUpstream, 'token', 'sk-upstream')).authorization).toBe(
      'Bearer sk-upstream',
    );
  });

  it('pass-through mode forwards the client credentials unchanged', () => {
    const sent = Object.fromEntries(upstreamHeaders(incoming, openAIUpstream, 'passthrough', undefined));
    expect(sent.authorization).toBe('Bearer proxy-token');
    expect(sent['x-api-key']).toBe('proxy-token');
  });

  it('the client gets the upstream headers minus encoding and hop-by-hop ones', () => {
    const upstream = new Headers({
      'retry-after': '7',
      'content-encoding': 'gzip',
      'content-length': '10',
      'transfer-encoding': 'chunked',
      'x-request-id': 'req_1',
    });
    expect(Object.fromEntries(clientHeaders(upstream))).toEqual({ 'retry-after': '7', 'x-request-id': 'req_1' });
  });
});

describe('proxy token check', () => {
  it('accepts exactly the configured token', async () => {
    const check = tokenVerifier('s3cret-Token_0123456789');
    expect(await check.verify('s3cret-Token_0123456789')).toBe(true);
    for (const presented of [
      '',
      's3cret',
      's3cret-Token_012345678',
      's3cret-Token_01234567890',
      's3cret-Token_0123456788',
      'S3cret-Token_0123456789',
      's3cret-Token_0123456789\u0000',
    ]) {
      expect(await check.verify(presented)).toBe(false);
    }
  });
});

describe('request body', () => {
  const encoder = new TextEncoder();
  const streamed = (parts: readonly Uint8Array[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    });
  const request = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request('http://proxy.test/v1/chat/completions', {
      method: 'POST',
      body,
      headers,
      duplex: 'half',
    } as RequestInit);
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as ProxyRequestError;
    }
    throw new Error('accepted');
  };

  it('reads a body of declared length in one go, and a chunked one as it streams', async () => {
    const text = '{"messages":[{"role":"user","content":"café ☕"}]}';
    const bytes = encoder.encode(text);
    expect(await readBodyText(request(bytes, { 'content-length': String(bytes.byteLength) }), 1024)).toEqual({
      text,
      bytes,
    });
    expect(await readBodyText(request(streamed([bytes.slice(0, 37), bytes.slice(37)])), 1024)).toEqual({
      text,
      bytes,
    });
  });

  it('refuses an empty body, bytes that are not UTF-8, and a body over the limit, declared or streamed', async () => {
    expect((await refusal(readBodyText(request(new Uint8Array(0), { 'content-length': '0' }), 1024))).status).toBe(400);
    const invalid = new Uint8Array([0x7b, 0xff, 0x7d]);
    expect((await refusal(readBodyText(request(invalid, { 'content-length': '3' }), 1024))).message).toMatch(/UTF-8/);
    expect((await refusal(readBodyText(request(streamed([invalid])), 1024))).message).toMatch(/UTF-8/);
    const big = new Uint8Array(2048).fill(0x20);
    expect((await refusal(readBodyText(request(big, { 'content-length': '2048' }), 1024))).status).toBe(413);
    expect((await refusal(readBodyText(request(streamed([big.slice(0, 1000), big.slice(1000)])), 1024))).status).toBe(
      413,
    );
  });
});
