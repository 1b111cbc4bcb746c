/**
 * The Responses client against the scripted server, and the scripted server's Responses
 * protocol against the real `openai` SDK (7.55.0): the SDK's stream accumulator checks every
 * event's order, ids and indexes, so a shape it refuses would fail here.
 */
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/message.js';
import { type ModelEvent, ModelHttpError, ModelStreamError } from '../../src/model/client.js';
import { openAIResponsesClient } from '../../src/model/openai-responses.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';

const weather: ToolSchema = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const factorial: ToolSchema = {
  name: 'math.factorial',
  description: 'n!',
  parameters: { type: 'object', properties: { n: { type: 'integer' } } },
};
const search: ToolSchema = {
  name: 'find_tools',
  description: 'Search every tool.',
  parameters: { type: 'object', properties: { query: { type: 'string' } } },
};
const ask: Message[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Weather in Oslo?' },
];

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer({ apiKey: 'sk-test' });
});
afterEach(() => {
  expect(server.pending, 'every queued reply was used').toBe(0);
  server.reset();
});
afterAll(() => server.close());

const client = () =>
  openAIResponsesClient({
    baseURL: server.openAIBaseURL,
    apiKey: 'sk-test',
    model: 'scripted',
    retry: { baseDelayMs: 1, maxDelayMs: 20 },
  });
const sdk = () => new OpenAI({ baseURL: server.openAIBaseURL, apiKey: 'sk-test', maxRetries: 0 });
const body = (i = 0) => server.requests[i]?.json as Record<string, any>;

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('openAIResponsesClient', () => {
  it('streams text and calls, reads usage, and sends instructions, input items and function tools', async () => {
    server.enqueue({
      text: 'Checking.',
      toolCalls: [{ id: 'call_a', name: 'math_factorial', arguments: { n: 5 }, chunks: 3 }],
      usage: { inputTokens: 40, outputTokens: 9 },
    });
    const events = await collect(
      client().stream({ messages: ask, tools: [weather, factorial], toolChoice: 'auto', maxTokens: 64 }),
    );
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Checking.');
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: 'call_a', name: 'math.factorial', arguments: '{"n":5}' } },
    ]);
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 40, outputTokens: 9 } },
      { type: 'finish', reason: 'tool_calls', providerReason: 'completed' },
    ]);
    const sent = body();
    expect(server.requests[0]?.path).toBe('/v1/responses');
    expect(sent).toMatchObject({
      model: 'scripted',
      instructions: 'Be brief.',
      store: false,
      stream: true,
      tool_choice: 'auto',
      max_output_tokens: 64,
    });
    expect(sent.input).toEqual([{ type: 'message', role: 'user', content: 'Weather in Oslo?' }]);
    expect(sent.tools.map((t: any) => [t.type, t.name])).toEqual([
      ['function', 'get_weather'],
      ['function', 'math_factorial'],
    ]);
  });

  it('round-trips a conversation: calls become function_call items, results function_call_output', async () => {
    server.enqueue({ text: 'Sunny.' });
    const messages: Message[] = [
      ...ask,
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      },
      { role: 'tool', toolCallId: 'call_1', name: 'get_weather', content: 'Sunny, 18°C' },
    ];
    const reply = await client().complete({ messages, tools: [weather] });
    expect(reply).toMatchObject({ text: 'Sunny.', finishReason: 'stop' });
    expect(body().input.slice(1)).toEqual([
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { type: 'function_call_output', call_id: 'call_1', output: 'Sunny, 18°C' },
    ]);
  });

  it('declares deferred tools and renders the loop search as a client tool_search; its calls and results round-trip', async () => {
    server.enqueue({ toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'weather' } }] });
    const first = await client().complete({
      messages: ask,
      tools: [search],
      deferredTools: [weather, factorial],
      toolSearch: { tool: 'find_tools' },
    });
    expect(first.toolCalls).toEqual([{ id: 'ts_1', name: 'find_tools', arguments: '{"query":"weather"}' }]);
    expect(body(0).tools).toEqual([
      { type: 'tool_search', execution: 'client', description: 'Search every tool.', parameters: search.parameters },
      {
        type: 'function',
        name: 'get_weather',
        description: weather.description,
        parameters: weather.parameters,
        strict: false,
        defer_loading: true,
      },
      {
        type: 'function',
        name: 'math_factorial',
        description: 'n!',
        parameters: factorial.parameters,
        strict: false,
        defer_loading: true,
      },
    ]);
    expect(server.requests[0]?.seenTools).toEqual([]);

    server.enqueue({ toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }] });
    const messages: Message[] = [
      ...ask,
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', toolCallId: 'ts_1', name: 'find_tools', content: 'Found 1 tool', references: ['get_weather'] },
    ];
    const second = await client().complete({
      messages,
      tools: [search],
      deferredTools: [weather, factorial],
      toolSearch: { tool: 'find_tools' },
    });
    expect(second.toolCalls[0]?.name).toBe('get_weather');
    expect(body(1).input.slice(1)).toEqual([
      {
        type: 'tool_search_call',
        call_id: 'ts_1',
        execution: 'client',
        arguments: { query: 'weather' },
        status: 'completed',
      },
      {
        type: 'tool_search_output',
        call_id: 'ts_1',
        execution: 'client',
        status: 'completed',
        tools: [
          {
            type: 'function',
            name: 'get_weather',
            description: weather.description,
            parameters: weather.parameters,
            strict: false,
          },
        ],
      },
    ]);
    expect(server.requests[1]?.seenTools).toEqual(['get_weather']);
  });

  it('maps incomplete to length, keeps unmodelled output items, and surfaces errors', async () => {
    server.enqueue({ text: 'Cut', finishReason: 'length' });
    const cut = await client().complete({ messages: ask, tools: [], stream: true });
    expect(cut).toMatchObject({ text: 'Cut', finishReason: 'length', providerReason: 'max_output_tokens' });

    server.enqueue({ kind: 'error', status: 400, message: "Invalid 'input'." });
    await expect(client().complete({ messages: ask, tools: [] })).rejects.toBeInstanceOf(ModelHttpError);

    server.enqueue({ text: 'partial', interrupt: { afterEvents: 4, action: 'provider-error', message: 'Overloaded' } });
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toBeInstanceOf(ModelStreamError);

    server.enqueue({ text: 'partial', interrupt: { afterEvents: 4, action: 'end' } });
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toThrow(/before response.completed/);
  });

  it('deferred tools without a tool_search are refused, as the API refuses them', async () => {
    await expect(client().complete({ messages: ask, tools: [weather], deferredTools: [factorial] })).rejects.toThrow(
      /Deferred tools require tools.tool_search/,
    );
    expect(server.requests[0]?.rejected).toMatch(/defer_loading/);
  });
});

describe('the scripted Responses protocol, read by the openai SDK', () => {
  it('responses.create (JSON and stream) and responses.stream accept the scripted replies', async () => {
    server.enqueue(
      { text: 'Hello there', usage: { inputTokens: 5, outputTokens: 2 } },
      {
        text: 'Streamed reply',
        toolCalls: [{ id: 'call_9', name: 'get_weather', arguments: { city: 'Oslo' }, chunks: 2 }],
      },
      { toolCalls: [{ id: 'ts_2', kind: 'tool_search', name: '', arguments: { query: 'weather' } }] },
    );
    const api = sdk();
    const plain = await api.responses.create({ model: 'scripted', input: 'hi' });
    expect(plain.output_text).toBe('Hello there');
    expect(plain.usage?.input_tokens).toBe(5);

    const stream = api.responses.stream({
      model: 'scripted',
      input: 'weather?',
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          parameters: weather.parameters as Record<string, unknown>,
          strict: false,
        },
      ],
    });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe('Streamed reply');
    expect(final.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect(final.output[1]).toMatchObject({
      type: 'function_call',
      call_id: 'call_9',
      name: 'get_weather',
      arguments: '{"city":"Oslo"}',
    });

    const searched = await api.responses.create({
      model: 'scripted',
      input: 'weather?',
      tools: [
        {
          type: 'tool_search',
          execution: 'client',
          parameters: { type: 'object', properties: { query: { type: 'string' } } },
        },
        {
          type: 'function',
          name: 'get_weather',
          parameters: weather.parameters as Record<string, unknown>,
          strict: false,
          defer_loading: true,
        },
      ],
    });
    expect(searched.output[0]).toMatchObject({
      type: 'tool_search_call',
      call_id: 'ts_2',
      execution: 'client',
      arguments: { query: 'weather' },
    });
  });
});
