import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/message.js';
import { type AnthropicMessagesOptions, anthropicMessagesClient } from '../../src/model/anthropic-messages.js';
import { type ModelEvent, ModelHttpError, type ModelRequest, ModelStreamError } from '../../src/model/client.js';
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
  parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
};
const ask: Message[] = [{ role: 'user', content: 'Weather in Oslo?' }];

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer({ apiKey: 'sk-ant-test' });
});
afterEach(() => {
  expect(server.pending, 'every queued reply was used').toBe(0);
  server.reset();
});
afterAll(() => server.close());

function client(options: Partial<AnthropicMessagesOptions> = {}) {
  return anthropicMessagesClient({
    baseURL: server.anthropicBaseURL,
    apiKey: 'sk-ant-test',
    model: 'claude-scripted',
    retry: { baseDelayMs: 1, maxDelayMs: 50 },
    ...options,
  });
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function json(index = 0): Record<string, unknown> {
  return server.requests[index]?.json as Record<string, unknown>;
}

describe('anthropicMessagesClient streaming', () => {
  it('streams text; usage combines message_start input and message_delta output', async () => {
    server.enqueue({ text: 'Sunny and mild in Oslo.', usage: { inputTokens: 33, outputTokens: 7 } });
    const events = await collect(client().stream({ messages: ask, tools: [weather] }));
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => e.delta)
        .join(''),
    ).toBe('Sunny and mild in Oslo.');
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 33, outputTokens: 7 } },
      { type: 'finish', reason: 'stop', providerReason: 'end_turn' },
    ]);
    const request = server.requests[0];
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe('sk-ant-test');
    expect(request?.headers['anthropic-version']).toBe('2023-06-01');
    expect(request?.headers.authorization).toBeUndefined();
    expect(json()).toMatchObject({ model: 'claude-scripted', max_tokens: 1024, stream: true });
  });

  it('sends exactly the bytes buildBody describes', async () => {
    server.enqueue({ text: 'ok' });
    const request: ModelRequest = {
      messages: [{ role: 'system', content: 'Be terse.' }, ...ask],
      tools: [weather, factorial],
      toolChoice: 'required',
      maxTokens: 99,
      temperature: 0.2,
    };
    const c = client();
    await collect(c.stream(request));
    expect(server.requests[0]?.rawBody).toBe(c.buildBody({ ...request, stream: true }));
    expect(JSON.parse(c.buildBody(request))).toEqual({
      model: 'claude-scripted',
      max_tokens: 99,
      system: 'Be terse.',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [
        { name: 'get_weather', description: weather.description, input_schema: weather.parameters },
        { name: 'math_factorial', description: 'n!', input_schema: factorial.parameters },
      ],
      tool_choice: { type: 'any' },
      temperature: 0.2,
    });
  });

  it('reassembles input_json_delta fragments split at awkward byte boundaries', async () => {
    const args = '{"city": "Tromsø 🌨", "units": "metric"}';
    server.enqueue({
      text: 'Looking.',
      toolCalls: [
        {
          id: 'toolu_01',
          name: 'get_weather',
          arguments: args,
          chunks: ['{"ci', 'ty": "Trom', 'sø 🌨"', ', "units": "met', 'ric"}'],
        },
      ],
      byteChunkSize: 3,
      lineEnding: '\r\n',
    });
    const events = await collect(client().stream({ messages: ask, tools: [weather] }));
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: 'toolu_01', name: 'get_weather', arguments: args } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls', providerReason: 'tool_use' });
  });

  it('emits parallel tool_use blocks in order, mapping wire names back', async () => {
    server.enqueue({
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Oslo' }, chunks: 3 },
        { name: 'math_factorial', arguments: { n: 6 }, chunks: 2 },
        { name: 'get_weather', arguments: '', chunks: 1 },
      ],
    });
    const reply = await client().complete({ messages: ask, tools: [weather, factorial], stream: true });
    expect(reply.toolCalls).toEqual([
      { id: 'toolu_0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { id: 'toolu_1', name: 'math.factorial', arguments: '{"n":6}' },
      { id: 'toolu_2', name: 'get_weather', arguments: '{}' },
    ]);
    expect(reply.finishReason).toBe('tool_calls');
  });
});

describe('anthropicMessagesClient non-streaming', () => {
  it('reads text, tool_use blocks and usage from JSON', async () => {
    server.enqueue({
      text: 'Computing.',
      toolCalls: [{ id: 'toolu_x', name: 'math_factorial', arguments: { n: 7 } }],
      usage: { inputTokens: 50, outputTokens: 12 },
    });
    const reply = await client().complete({
      messages: ask,
      tools: [factorial],
      toolChoice: { name: 'math.factorial' },
    });
    expect(reply).toEqual({
      text: 'Computing.',
      toolCalls: [{ id: 'toolu_x', name: 'math.factorial', arguments: '{"n":7}' }],
      usage: { inputTokens: 50, outputTokens: 12 },
      finishReason: 'tool_calls',
      providerReason: 'tool_use',
    });
    expect(json()).not.toHaveProperty('stream');
    expect(json().tool_choice).toEqual({ type: 'tool', name: 'math_factorial' });
  });
});

describe('anthropicMessagesClient request mapping', () => {
  it('omits tools and tool_choice entirely when no tools are advertised', async () => {
    server.enqueue({ text: 'none' }, { text: 'none again' });
    const c = client();
    await c.complete({ messages: ask, tools: [], toolChoice: 'none' });
    await collect(c.stream({ messages: ask, tools: [], toolChoice: 'auto' }));
    for (const request of server.requests) {
      expect(request.rejected).toBeUndefined();
      expect(request.rawBody).not.toContain('"tools"');
      expect(request.rawBody).not.toContain('"tool_choice"');
    }
  });

  it('maps tool choices to auto, any, none and tool', () => {
    const c = client();
    const choiceOf = (toolChoice: ModelRequest['toolChoice']) =>
      JSON.parse(c.buildBody({ messages: ask, tools: [factorial], ...(toolChoice ? { toolChoice } : {}) })).tool_choice;
    expect(choiceOf('auto')).toEqual({ type: 'auto' });
    expect(choiceOf('required')).toEqual({ type: 'any' });
    expect(choiceOf('none')).toEqual({ type: 'none' });
    expect(choiceOf({ name: 'math.factorial' })).toEqual({ type: 'tool', name: 'math_factorial' });
    expect(choiceOf(undefined)).toBeUndefined();
  });

  it('extracts system, merges consecutive tool results into one user message, parses inputs', async () => {
    server.enqueue({ text: 'Done.' });
    const messages: Message[] = [
      { role: 'system', content: 'Be terse.' },
      { role: 'system', content: 'Use metric.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compute 7!' },
          { type: 'text', text: 'And Oslo weather.' },
        ],
      },
      {
        role: 'assistant',
        content: 'On it.',
        toolCalls: [
          { id: 'toolu_a', name: 'math.factorial', arguments: '{"n":7}' },
          { id: 'toolu_b', name: 'get_weather', arguments: '{"city": "Oslo"' },
        ],
      },
      { role: 'tool', toolCallId: 'toolu_a', name: 'math.factorial', content: '5040' },
      { role: 'tool', toolCallId: 'toolu_b', name: 'get_weather', content: 'bad arguments', isError: true },
      { role: 'user', content: 'Also: be quick.', transient: true },
      {
        role: 'assistant',
        content: 'Calling again.',
        toolCalls: [{ id: 'toolu_c', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
      },
      { role: 'tool', toolCallId: 'toolu_c', name: 'get_weather', content: 'sunny' },
    ];
    await client().complete({ messages, tools: [weather, factorial] });
    expect(server.requests[0]?.rejected).toBeUndefined();
    expect(json().system).toBe('Be terse.\n\nUse metric.');
    expect(json().messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compute 7!' },
          { type: 'text', text: 'And Oslo weather.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'On it.' },
          { type: 'tool_use', id: 'toolu_a', name: 'math_factorial', input: { n: 7 } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '5040' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'bad arguments', is_error: true },
          { type: 'text', text: 'Also: be quick.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Calling again.' },
          { type: 'tool_use', id: 'toolu_c', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_c', content: 'sunny' }] },
    ]);
  });

  it('leaves out an empty text block beside tool calls', () => {
    const body = JSON.parse(
      client().buildBody({
        messages: [
          ...ask,
          { role: 'assistant', content: '', toolCalls: [{ id: 't', name: 'get_weather', arguments: '{}' }] },
        ],
        tools: [weather],
      }),
    );
    expect(body.messages[1].content).toEqual([{ type: 'tool_use', id: 't', name: 'get_weather', input: {} }]);
  });
});

describe('anthropicMessagesClient errors and retries', () => {
  it('retries a 429 with Retry-After: 0 and then succeeds', async () => {
    server.enqueue(
      {
        kind: 'error',
        status: 429,
        message: 'Number of requests has exceeded your rate limit',
        headers: { 'retry-after': '0' },
      },
      { text: 'ok' },
    );
    const retries: number[] = [];
    const reply = await client({
      retry: { baseDelayMs: 5_000, onRetry: (info) => retries.push(info.delayMs) },
    }).complete({
      messages: ask,
      tools: [],
    });
    expect(reply.text).toBe('ok');
    expect(retries).toEqual([0]);
    expect(server.requests).toHaveLength(2);
  });

  it('retries 529 overloaded, and surfaces the provider message after maxAttempts', async () => {
    server.enqueue(
      { kind: 'error', status: 529, message: 'Overloaded' },
      { kind: 'error', status: 529, message: 'Overloaded' },
    );
    const error = await client({ retry: { maxAttempts: 2, baseDelayMs: 1 } })
      .complete({ messages: ask, tools: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelHttpError);
    expect(error).toMatchObject({
      status: 529,
      providerMessage: 'Overloaded',
      errorType: 'overloaded_error',
      retryable: true,
    });
    expect((error as Error).message).toContain('Overloaded');
    expect(server.requests).toHaveLength(2);
  });

  it('does not retry 400 or 401', async () => {
    server.enqueue({ kind: 'error', status: 400, message: 'max_tokens: Field required' });
    await expect(client().complete({ messages: ask, tools: [] })).rejects.toMatchObject({
      status: 400,
      retryable: false,
      errorType: 'invalid_request_error',
      providerMessage: 'max_tokens: Field required',
    });
    await expect(client({ apiKey: 'wrong' }).complete({ messages: ask, tools: [] })).rejects.toMatchObject({
      status: 401,
      errorType: 'authentication_error',
    });
    expect(server.requests).toHaveLength(2);
  });

  it('turns malformed SSE into ModelStreamError', async () => {
    server.enqueue({ text: 'partial answer here', interrupt: { afterEvents: 4, action: 'malformed' } });
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toBeInstanceOf(ModelStreamError);
  });

  it('reports an in-stream error event with its type', async () => {
    server.enqueue({
      text: 'a b c',
      interrupt: { afterEvents: 3, action: 'provider-error', errorType: 'overloaded_error', message: 'Overloaded' },
    });
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toMatchObject({
      name: 'ModelStreamError',
      errorType: 'overloaded_error',
      retryable: true,
      message: expect.stringContaining('Overloaded'),
    });
  });

  it('treats a stream that ends before message_stop as ModelStreamError', async () => {
    server.enqueue({ text: 'cut', interrupt: { afterEvents: 4, action: 'end' } });
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toBeInstanceOf(ModelStreamError);
  });
});

describe('anthropicMessagesClient abort', () => {
  it('cancels the fetch mid-stream and rejects promptly with the AbortError', async () => {
    server.enqueue({ text: 'first second third', interrupt: { afterEvents: 4, action: 'hang' } });
    const controller = new AbortController();
    const seen: ModelEvent[] = [];
    const run = (async () => {
      for await (const event of client().stream({ messages: ask, tools: [] }, { signal: controller.signal })) {
        seen.push(event);
        if (seen.length === 1) setTimeout(() => controller.abort(), 20);
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([{ type: 'text', delta: 'first' }]);
    expect(await server.requests[0]?.settled).toBe('client-closed');
  });

  it('rejects at once when the signal is already aborted, sending nothing', async () => {
    await expect(
      client().complete({ messages: ask, tools: [] }, { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('anthropicMessagesClient options set to undefined', () => {
  it('sends the default max_tokens when maxTokens is undefined', async () => {
    server.enqueue({ text: 'ok' });
    const reply = await client({ maxTokens: undefined, anthropicVersion: undefined }).complete({
      messages: ask,
      tools: [],
    });
    expect(reply.text).toBe('ok');
    expect(server.requests[0]?.rejected).toBeUndefined();
    expect(json().max_tokens).toBe(1024);
    expect(server.requests[0]?.headers['anthropic-version']).toBe('2023-06-01');
  });
});
