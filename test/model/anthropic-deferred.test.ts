/**
 * Deferred loading on the Anthropic Messages wire: `defer_loading`, the hosted BM25 / regex
 * searches and their blocks round-tripping verbatim, `tool_reference` results, and what the
 * scripted server (like the vendor) refuses.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AssistantMessage, Message } from '../../src/message.js';
import { anthropicMessagesClient } from '../../src/model/anthropic-messages.js';
import type { ModelRequest } from '../../src/model/client.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';

const tool = (name: string, description: string): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
});
const search = tool('find_tools', 'Search every available tool.');
const weather = tool('get_weather', 'Current weather and forecast for a city.');
const email = tool('send_email', 'Send an email message to a recipient.');
const stock = tool('stock.price', 'Latest trading price of a stock ticker.');
const ask: Message[] = [{ role: 'user', content: 'Email Kim the forecast.' }];

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterEach(() => {
  expect(server.pending, 'every queued reply was used').toBe(0);
  server.reset();
});
afterAll(() => server.close());

const client = (options: { headers?: Record<string, string>; deferLoading?: boolean } = {}) =>
  anthropicMessagesClient({
    baseURL: server.anthropicBaseURL,
    model: 'claude-scripted',
    retry: { maxAttempts: 1 },
    ...options,
  });
const body = (i = 0) => server.requests[i]?.json as Record<string, any>;

describe('anthropicMessagesClient with deferred tools', () => {
  it('declares deferred tools with defer_loading (after the loaded ones), adds the beta, and the model sees only the loaded', async () => {
    server.enqueue({ text: 'ok' });
    const request: ModelRequest = {
      messages: ask,
      tools: [weather, search],
      deferredTools: [email, stock],
      toolSearch: { tool: 'find_tools' },
    };
    await client({ headers: { 'anthropic-beta': 'files-api-2025-04-14' } }).complete(request);
    expect(body().tools.map((t: any) => [t.name, t.defer_loading ?? false])).toEqual([
      ['get_weather', false],
      ['find_tools', false],
      ['send_email', true],
      ['stock_price', true],
    ]);
    expect(server.requests[0]?.headers['anthropic-beta']).toBe('files-api-2025-04-14,advanced-tool-use-2025-11-20');
    expect(server.requests[0]?.seenTools).toEqual(['get_weather', 'find_tools']);
    expect(server.requests[0]?.deferredTools).toEqual(['send_email', 'stock_price']);
  });

  it('a search result becomes tool_reference blocks (declared tools only) in deferred mode, plain text otherwise', async () => {
    const messages: Message[] = [
      ...ask,
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'toolu_s', name: 'find_tools', arguments: '{"query":"email"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'toolu_s',
        name: 'find_tools',
        content: 'Found 2 tools: send_email, gone_tool',
        references: ['send_email', 'gone_tool', 'stock.price'],
      },
    ];
    server.enqueue({ toolCalls: [{ id: 'toolu_e', name: 'send_email', arguments: { q: 'kim' } }] }, { text: 'ok' });
    const reply = await client().complete({
      messages,
      tools: [weather, search],
      deferredTools: [email, stock],
      toolSearch: { tool: 'find_tools' },
    });
    expect(reply.toolCalls[0]?.name).toBe('send_email');
    const result = body(0).messages[2].content[0];
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_s',
      content: [
        { type: 'tool_reference', tool_name: 'send_email' },
        { type: 'tool_reference', tool_name: 'stock_price' },
      ],
    });
    expect(server.requests[0]?.seenTools).toEqual(['get_weather', 'find_tools', 'send_email', 'stock_price']);

    await client().complete({ messages, tools: [weather, search, email] });
    expect(body(1).messages[2].content[0].content).toBe('Found 2 tools: send_email, gone_tool');
  });

  it.each([
    ['bm25', { query: 'send an email message' }],
    ['regex', { pattern: 'e-?mail' }],
  ] as const)(
    'the hosted %s search: its blocks come back in providerContent and go back verbatim; its find is callable in the same reply',
    async (kind, hosted) => {
      server.enqueue({
        hostedSearch: { id: 'srvtoolu_1', ...hosted },
        text: 'Found it.',
        toolCalls: [{ id: 'toolu_1', name: 'send_email', arguments: { q: 'kim' } }],
      });
      const request: ModelRequest = {
        messages: ask,
        tools: [weather],
        deferredTools: [email, stock],
        toolSearch: { hosted: kind },
      };
      const streamed = await client().complete({ ...request, stream: true });
      expect(body(0).tools[1]).toEqual({ type: `tool_search_tool_${kind}_20251119`, name: `tool_search_tool_${kind}` });
      expect(streamed.toolCalls.map((call) => call.name)).toEqual(['send_email']);
      expect(streamed.providerContent).toEqual({
        protocol: 'anthropic-messages',
        items: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: `tool_search_tool_${kind}`, input: hosted },
          {
            type: 'tool_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: {
              type: 'tool_search_tool_search_result',
              tool_references: [{ type: 'tool_reference', tool_name: 'send_email' }],
            },
          },
        ],
      });

      // The same reply as JSON keeps the same blocks.
      server.enqueue({
        hostedSearch: { id: 'srvtoolu_1', ...hosted },
        text: 'Found it.',
        toolCalls: [{ id: 'toolu_1', name: 'send_email', arguments: { q: 'kim' } }],
      });
      const whole = await client().complete({ ...request, stream: false });
      expect(whole.providerContent).toEqual(streamed.providerContent);

      const assistant: AssistantMessage = {
        role: 'assistant',
        content: streamed.text,
        toolCalls: streamed.toolCalls,
        providerContent: streamed.providerContent,
      };
      server.enqueue({ text: 'Sent.' });
      await client().complete({
        ...request,
        messages: [...ask, assistant, { role: 'tool', toolCallId: 'toolu_1', name: 'send_email', content: 'sent' }],
      });
      expect(body(2).messages[1].content).toEqual([
        ...(streamed.providerContent?.items ?? []),
        { type: 'text', text: 'Found it.' },
        { type: 'tool_use', id: 'toolu_1', name: 'send_email', input: { q: 'kim' } },
      ]);
      expect(server.requests[2]?.seenTools).toContain('send_email');
    },
  );

  it('a client told the server has no deferred loading keeps deferred tools back', async () => {
    server.enqueue({ text: 'ok' });
    await client({ deferLoading: false }).complete({
      messages: ask,
      tools: [weather],
      deferredTools: [email],
      toolSearch: { hosted: 'bm25' },
    });
    expect(body().tools.map((t: any) => t.name)).toEqual(['get_weather']);
    expect(server.requests[0]?.headers['anthropic-beta']).toBeUndefined();
  });
});

describe('the scripted server refuses what the vendor refuses', () => {
  const post = (json: Record<string, unknown>) =>
    fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(json),
    });
  const base = { model: 'claude-scripted', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
  const wire = (schema: ToolSchema, defer = false) => ({
    name: schema.name.replace('.', '_'),
    description: schema.description,
    input_schema: schema.parameters,
    ...(defer ? { defer_loading: true } : {}),
  });

  it('every custom tool deferred, more than 10,000 tools, a deferred search tool, a tool_reference to an undeclared tool', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        {
          ...base,
          tools: [wire(email, true), { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }],
        },
        /at least one tool must not be deferred/,
      ],
      [
        { ...base, tools: Array.from({ length: 10_001 }, (_, i) => ({ ...wire(email), name: `t${i}` })) },
        /at most 10000 tools/,
      ],
      [
        {
          ...base,
          tools: [
            wire(weather),
            { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex', defer_loading: true },
          ],
        },
        /cannot be deferred/,
      ],
      [
        {
          ...base,
          tools: [wire(weather), wire(search)],
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'find_tools', input: {} }] },
            {
              role: 'user',
              content: [
                { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'tool_reference', tool_name: 'nowhere' }] },
              ],
            },
          ],
        },
        /tool_reference to "nowhere"/,
      ],
    ];
    for (const [json, message] of cases) {
      const response = await post(json);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error.message).toMatch(message);
    }
  });

  it('a script calling a deferred tool nothing revealed fails loudly; marked hallucinated it is sent', async () => {
    const request: ModelRequest = {
      messages: ask,
      tools: [weather, search],
      deferredTools: [email],
      toolSearch: { tool: 'find_tools' },
    };
    server.enqueue({ toolCalls: [{ name: 'send_email', arguments: {} }] });
    await expect(client().complete(request)).rejects.toThrow(/deferred tool this request has not revealed/);
    server.enqueue({ toolCalls: [{ name: 'send_email', arguments: {}, hallucinated: true }] });
    expect((await client().complete(request)).toolCalls[0]?.name).toBe('send_email');
  });

  it('the hosted regex search answers a bad pattern with the vendor error block, finding nothing', async () => {
    server.enqueue({ hostedSearch: { pattern: '(' }, text: 'No luck.' });
    const reply = await client().complete({
      messages: ask,
      tools: [weather],
      deferredTools: [email],
      toolSearch: { hosted: 'regex' },
    });
    expect(reply.providerContent?.items[1]).toMatchObject({
      type: 'tool_search_tool_result',
      content: { type: 'tool_search_tool_result_error', error_code: 'invalid_tool_input' },
    });
  });
});
