import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/message.js';
import {
  type ModelEvent,
  ModelHttpError,
  ModelNetworkError,
  type ModelRequest,
  ModelStreamError,
} from '../../src/model/client.js';
import { type OpenAIChatOptions, openAIChatClient } from '../../src/model/openai-chat.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';
import { holdUnreachablePort } from '../support/unreachable-port.js';

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
  server = await startScriptedModelServer();
});
afterEach(() => {
  expect(server.pending, 'every queued reply was used').toBe(0);
  server.reset();
});
afterAll(() => server.close());

function client(options: Partial<OpenAIChatOptions> = {}) {
  return openAIChatClient({
    baseURL: server.openAIBaseURL,
    apiKey: 'sk-test',
    model: 'scripted-model',
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

describe('openAIChatClient streaming', () => {
  it('streams text, then usage from the final chunk, then finish', async () => {
    server.enqueue({ text: 'Sunny and mild in Oslo.', usage: { inputTokens: 21, outputTokens: 6 } });
    const events = await collect(client().stream({ messages: ask, tools: [weather] }));
    const texts = events.filter((e) => e.type === 'text');
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.map((e) => e.delta).join('')).toBe('Sunny and mild in Oslo.');
    expect(events.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 21, outputTokens: 6 } },
      { type: 'finish', reason: 'stop', providerReason: 'stop' },
    ]);

    const request = server.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.outcome).toBe('completed');
    expect(json()).toMatchObject({ model: 'scripted-model', stream: true, stream_options: { include_usage: true } });
    expect(json()).not.toHaveProperty('parallel_tool_calls');
  });

  it('sends exactly the bytes buildBody describes', async () => {
    server.enqueue({ text: 'ok' });
    const request: ModelRequest = {
      messages: ask,
      tools: [weather, factorial],
      toolChoice: 'auto',
      temperature: 0,
      maxTokens: 64,
    };
    const c = client();
    await collect(c.stream(request));
    expect(server.requests[0]?.rawBody).toBe(c.buildBody({ ...request, stream: true }));
    expect(c.buildBody(request)).toBe(c.buildBody({ ...request }));
    expect(JSON.parse(c.buildBody(request))).toEqual({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: weather.description, parameters: weather.parameters },
        },
        { type: 'function', function: { name: 'math_factorial', description: 'n!', parameters: factorial.parameters } },
      ],
      tool_choice: 'auto',
      max_tokens: 64,
      temperature: 0,
    });
  });

  it('reassembles tool-call arguments split at awkward byte boundaries', async () => {
    const args = '{"city": "Tromsø 🌨", "units": "metric"}';
    server.enqueue({
      toolCalls: [
        {
          id: 'call_abc',
          name: 'get_weather',
          arguments: args,
          chunks: ['{"ci', 'ty": "Trom', 'sø 🌨"', ', "units": "met', 'ric"}'],
        },
      ],
      byteChunkSize: 5,
      lineEnding: '\r\n',
      comments: true,
    });
    const events = await collect(client().stream({ messages: ask, tools: [weather] }));
    expect(events.filter((e) => e.type === 'text')).toEqual([]);
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([
      { type: 'tool_call', call: { id: 'call_abc', name: 'get_weather', arguments: args } },
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls', providerReason: 'tool_calls' });
  });

  it('reassembles interleaved parallel tool calls by index, in index order', async () => {
    server.enqueue({
      text: 'Checking both.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Oslo' }, chunks: 4 },
        { name: 'get_weather', arguments: { city: 'Bergen' }, chunks: 3 },
        { name: 'math_factorial', arguments: { n: 5 }, chunks: 2 },
      ],
      interleaveToolCalls: true,
    });
    const reply = await client().complete({ messages: ask, tools: [weather, factorial], stream: true });
    expect(reply.text).toBe('Checking both.');
    expect(reply.toolCalls).toEqual([
      { id: 'call_0', name: 'get_weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Bergen"}' },
      { id: 'call_2', name: 'math.factorial', arguments: '{"n":5}' },
    ]);
    expect(reply.finishReason).toBe('tool_calls');
    expect(reply.usage?.outputTokens).toBeGreaterThan(0);
  });

  it('stops reading at [DONE] and cancels the body when the consumer breaks early', async () => {
    server.enqueue({ text: 'one two three four', chunkDelayMs: 20 });
    for await (const event of client().stream({ messages: ask, tools: [] })) {
      expect(event).toEqual({ type: 'text', delta: 'one' });
      break;
    }
    expect(await server.requests[0]?.settled).toBe('client-closed');
  });
});

describe('openAIChatClient non-streaming', () => {
  it('reads text, tool calls (names mapped back) and usage from JSON', async () => {
    server.enqueue({
      text: 'Let me compute.',
      toolCalls: [{ id: 'call_9', name: 'math_factorial', arguments: '{"n":7}' }],
      usage: { inputTokens: 40, outputTokens: 9 },
    });
    const reply = await client().complete({ messages: ask, tools: [factorial], toolChoice: 'required' });
    expect(reply).toEqual({
      text: 'Let me compute.',
      toolCalls: [{ id: 'call_9', name: 'math.factorial', arguments: '{"n":7}' }],
      usage: { inputTokens: 40, outputTokens: 9 },
      finishReason: 'tool_calls',
      providerReason: 'tool_calls',
    });
    expect(json()).not.toHaveProperty('stream');
    expect(json()).not.toHaveProperty('stream_options');
    expect(json().tool_choice).toBe('required');
    expect(server.requests[0]?.headers.accept).toBe('application/json');
  });
});

describe('openAIChatClient request mapping', () => {
  it('omits tools and tool_choice entirely when no tools are advertised', async () => {
    server.enqueue({ text: 'no tools' }, { text: 'still none' });
    const c = client();
    await c.complete({ messages: ask, tools: [], toolChoice: 'required' });
    await collect(c.stream({ messages: ask, tools: [], toolChoice: { name: 'get_weather' } }));
    for (const request of server.requests) {
      expect(request.rejected).toBeUndefined();
      expect(request.rawBody).not.toContain('"tools"');
      expect(request.rawBody).not.toContain('"tool_choice"');
      expect(request.rawBody).not.toContain('parallel_tool_calls');
    }
  });

  it('maps a whole conversation: system, text parts, assistant tool calls, tool results', async () => {
    server.enqueue({ text: '5040, and Oslo is sunny.' });
    const messages: Message[] = [
      { role: 'system', content: 'Be terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compute 7!' },
          { type: 'text', text: 'And the weather.' },
        ],
      },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'c1', name: 'math.factorial', arguments: '{"n":7}' },
          { id: 'c2', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        ],
      },
      { role: 'tool', toolCallId: 'c1', name: 'math.factorial', content: '5040' },
      { role: 'tool', toolCallId: 'c2', name: 'get_weather', content: 'timeout', isError: true },
    ];
    const reply = await client().complete({ messages, tools: [factorial], toolChoice: { name: 'math.factorial' } });
    expect(reply.text).toBe('5040, and Oslo is sunny.');
    expect(server.requests[0]?.rejected).toBeUndefined();
    expect(json().messages).toEqual([
      { role: 'system', content: 'Be terse.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compute 7!' },
          { type: 'text', text: 'And the weather.' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'math_factorial', arguments: '{"n":7}' } },
          { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '5040' },
      { role: 'tool', tool_call_id: 'c2', content: 'timeout' },
    ]);
    expect(json().tool_choice).toEqual({ type: 'function', function: { name: 'math_factorial' } });
  });

  it('keeps dotted names valid on the wire and maps calls back to registered names', async () => {
    server.enqueue({ toolCalls: [{ name: 'math_factorial', arguments: '{"n":3}', chunks: 3 }] });
    const events = await collect(client().stream({ messages: ask, tools: [factorial] }));
    expect(events.find((e) => e.type === 'tool_call')).toEqual({
      type: 'tool_call',
      call: { id: 'call_0', name: 'math.factorial', arguments: '{"n":3}' },
    });
    expect((json().tools as { function: { name: string } }[])[0]?.function.name).toBe('math_factorial');
    expect(server.requests[0]?.rejected).toBeUndefined();
  });

  it('rejects a forced tool that is not advertised before sending anything', async () => {
    await expect(
      client().complete({ messages: ask, tools: [weather], toolChoice: { name: 'math.factorial' } }),
    ).rejects.toThrow(TypeError);
    expect(server.requests).toHaveLength(0);
  });

  it('merges extraBody, headers and maxTokensField', async () => {
    server.enqueue({ text: 'ok' });
    await client({
      extraBody: { seed: 7 },
      headers: { 'x-trace': 't1' },
      maxTokensField: 'max_completion_tokens',
    }).complete({
      messages: ask,
      tools: [],
      maxTokens: 10,
    });
    expect(json()).toMatchObject({ seed: 7, max_completion_tokens: 10 });
    expect(json()).not.toHaveProperty('max_tokens');
    expect(server.requests[0]?.headers['x-trace']).toBe('t1');
  });
});

describe('openAIChatClient errors and retries', () => {
  it('retries a 429, honouring retry-after-ms, then succeeds', async () => {
    server.enqueue(
      { kind: 'error', status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '120' } },
      { text: 'finally' },
    );
    const started = Date.now();
    const reply = await client({ retry: { baseDelayMs: 1, maxDelayMs: 5_000 } }).complete({ messages: ask, tools: [] });
    expect(reply.text).toBe('finally');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a 429 with Retry-After in seconds, capped by maxDelayMs', async () => {
    server.enqueue({ kind: 'error', status: 429, headers: { 'retry-after': '30' } }, { text: 'ok' });
    const started = Date.now();
    await client({ retry: { maxDelayMs: 30 } }).complete({ messages: ask, tools: [] });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(2);
  });

  it('surfaces a 500 as a typed error with the provider message after maxAttempts', async () => {
    for (let i = 0; i < 3; i++)
      server.enqueue({ kind: 'error', status: 500, message: `The server had an error (${i})` });
    const error = await client()
      .complete({ messages: ask, tools: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelHttpError);
    expect(error).toMatchObject({
      status: 500,
      provider: 'openai',
      providerMessage: 'The server had an error (2)',
      errorType: 'server_error',
      retryable: true,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400', async () => {
    server.enqueue({ kind: 'error', status: 400, message: "Invalid value for 'temperature'" });
    const error = await collect(client().stream({ messages: ask, tools: [] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelHttpError);
    expect(error).toMatchObject({ status: 400, retryable: false, providerMessage: "Invalid value for 'temperature'" });
    expect(server.requests).toHaveLength(1);
  });

  it('reads Ollama-style {"error": "text"} bodies', async () => {
    server.enqueue({ kind: 'error', status: 404, body: { error: 'model "nope" not found, try pulling it first' } });
    await expect(client().complete({ messages: ask, tools: [] })).rejects.toMatchObject({
      status: 404,
      providerMessage: 'model "nope" not found, try pulling it first',
    });
  });

  it('turns malformed SSE into ModelStreamError', async () => {
    server.enqueue({ text: 'partial answer', interrupt: { afterEvents: 2, action: 'malformed' } });
    const seen: ModelEvent[] = [];
    const error = await (async () => {
      for await (const event of client().stream({ messages: ask, tools: [] })) seen.push(event);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelStreamError);
    expect(seen).toEqual([{ type: 'text', delta: 'partial' }]);
  });

  it('reports an error the server sends inside the stream', async () => {
    server.enqueue({
      text: 'a b',
      interrupt: { afterEvents: 1, action: 'provider-error', message: 'overloaded', errorType: 'server_error' },
    });
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toMatchObject({
      name: 'ModelStreamError',
      errorType: 'server_error',
    });
  });

  it('treats a stream that ends early, or a reset connection, as ModelStreamError', async () => {
    server.enqueue(
      { text: 'cut short here', interrupt: { afterEvents: 2, action: 'end' } },
      { text: 'reset here', interrupt: { afterEvents: 2, action: 'close' } },
    );
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toBeInstanceOf(ModelStreamError);
    await expect(collect(client().stream({ messages: ask, tools: [] }))).rejects.toBeInstanceOf(ModelStreamError);
    expect(await server.requests[1]?.settled).toBe('server-closed');
  });

  it('wraps connection failures as ModelNetworkError after retrying', async () => {
    const dead = await holdUnreachablePort();
    const retried: number[] = [];
    const error = await openAIChatClient({
      baseURL: `${dead.origin}/v1`,
      model: 'm',
      retry: { baseDelayMs: 1, onRetry: (info) => retried.push(info.attempt) },
    })
      .complete({ messages: ask, tools: [] })
      .catch((e: unknown) => e)
      .finally(() => dead.close());
    expect(error).toBeInstanceOf(ModelNetworkError);
    expect(retried).toEqual([1, 2]);
  });
});

describe('openAIChatClient abort', () => {
  it('cancels the fetch mid-stream and rejects promptly with the AbortError', async () => {
    server.enqueue({ text: 'first second third', interrupt: { afterEvents: 2, action: 'hang' } });
    const controller = new AbortController();
    const seen: ModelEvent[] = [];
    const run = (async () => {
      for await (const event of client().stream({ messages: ask, tools: [] }, { signal: controller.signal })) {
        seen.push(event);
      }
    })();
    await server.waitForRequests(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - started).toBeLessThan(500);
    expect(seen).toEqual([{ type: 'text', delta: 'first' }]);
    expect(await server.requests[0]?.settled).toBe('client-closed');
  });

  it('aborts a request the server never answers, with the caller’s reason', async () => {
    server.enqueue({ kind: 'hang' });
    const controller = new AbortController();
    const reason = new DOMException('user pressed stop', 'AbortError');
    const run = client().complete({ messages: ask, tools: [] }, { signal: controller.signal });
    await server.waitForRequests(1);
    controller.abort(reason);
    await expect(run).rejects.toBe(reason);
    expect(await server.requests[0]?.settled).toBe('client-closed');
  });

  it('aborts during a retry wait without another request', async () => {
    server.enqueue({ kind: 'error', status: 503, headers: { 'retry-after': '10' } });
    const controller = new AbortController();
    const run = client({ retry: { maxDelayMs: 10_000 } }).complete(
      { messages: ask, tools: [] },
      { signal: controller.signal },
    );
    await server.waitForRequests(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    controller.abort();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.requests).toHaveLength(1);
  });
});

describe('openAIChatClient options set to undefined', () => {
  it('keeps the default base URL when baseURL is undefined (an unset environment variable)', async () => {
    const unset: string | undefined = process.env.LOOPCTL_TEST_SURELY_UNSET;
    const asked: string[] = [];
    // The default is a local Ollama; the fetch records where the client sends, then reaches the scripted server.
    const via = (url: string, init: RequestInit): Promise<Response> => {
      asked.push(url);
      return fetch(url.replace('http://127.0.0.1:11434/v1', server.openAIBaseURL), init);
    };
    const c = openAIChatClient({ model: 'scripted-model', baseURL: unset, fetch: via });
    server.enqueue({ text: 'ok' });
    expect((await c.complete({ messages: ask, tools: [] })).text).toBe('ok');
    expect(asked).toEqual(['http://127.0.0.1:11434/v1/chat/completions']);
  });

  it('keeps the default max_tokens field when maxTokensField is undefined', async () => {
    server.enqueue({ text: 'ok' });
    await client({ maxTokensField: undefined }).complete({ messages: ask, tools: [], maxTokens: 50 });
    expect(json()).toMatchObject({ max_tokens: 50 });
    expect(json()).not.toHaveProperty('undefined');
  });

  it('leaves out of the body a temperature and max tokens the request does not set', async () => {
    server.enqueue({ text: 'ok' });
    await client().complete({ messages: ask, tools: [], temperature: undefined, maxTokens: undefined });
    expect(server.requests[0]?.rawBody).not.toContain('temperature');
    expect(server.requests[0]?.rawBody).not.toContain('max_tokens');
  });
});
