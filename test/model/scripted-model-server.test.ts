import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../support/scripted-model-server.js';

// The stand-in must itself be right: these tests pin the behaviour other suites rely on.

let server: ScriptedModelServer;
beforeAll(async () => {
  server = await startScriptedModelServer();
});
afterAll(() => server.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

const user = [{ role: 'user', content: 'hi' }];

describe('strict OpenAI validation', () => {
  it.each([
    [
      'a dotted tool name',
      { tools: [{ type: 'function', function: { name: 'math.factorial', parameters: {} } }] },
      'does not match pattern',
    ],
    ['tool_choice without tools', { tool_choice: 'auto' }, "only allowed when 'tools' are specified"],
    ['an empty tools array', { tools: [] }, 'too short'],
    ['stream_options without stream', { stream_options: { include_usage: true } }, 'stream_options'],
  ])('rejects %s with an OpenAI-shaped 400 and keeps the queued reply', async (_label, extra, message) => {
    server.reset();
    server.enqueue({ text: 'unused' });
    const response = await post('/v1/chat/completions', { model: 'm', messages: user, ...extra });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string } };
    expect(body.error.message).toContain(message);
    expect(body.error.type).toBe('invalid_request_error');
    expect(server.requests[0]?.rejected).toContain(message);
    expect(server.pending).toBe(1);
  });

  it('rejects tool calls without a tool message answering each id', async () => {
    server.reset();
    const response = await post('/v1/chat/completions', {
      model: 'm',
      messages: [
        ...user,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'user', content: 'and?' },
      ],
    });
    expect(response.status).toBe(400);
    expect(server.requests[0]?.rejected).toContain('c1');
  });
});

describe('strict Anthropic validation', () => {
  const base = { model: 'claude', max_tokens: 10, messages: user };
  const headers = { 'anthropic-version': '2023-06-01' };

  it('requires the anthropic-version header and max_tokens', async () => {
    server.reset();
    expect((await post('/v1/messages', base)).status).toBe(400);
    const response = await post('/v1/messages', { model: 'claude', messages: user }, headers);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'max_tokens: Field required' },
    });
  });

  it('rejects tool results that do not answer the previous message’s tool_use blocks', async () => {
    server.reset();
    const response = await post(
      '/v1/messages',
      {
        ...base,
        messages: [
          ...user,
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'x' }] },
        ],
      },
      headers,
    );
    expect(response.status).toBe(400);
    expect(server.requests[0]?.rejected).toContain('toolu_2');
  });

  it('rejects empty text blocks and invalid tool names', async () => {
    server.reset();
    const empty = await post(
      '/v1/messages',
      { ...base, messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] },
      headers,
    );
    expect(empty.status).toBe(400);
    const dotted = await post(
      '/v1/messages',
      { ...base, tools: [{ name: 'a.b', input_schema: { type: 'object' } }] },
      headers,
    );
    expect(dotted.status).toBe(400);
  });
});

describe('scripting', () => {
  it('answers from the script once the queue is empty, and records every request', async () => {
    const scripted = await startScriptedModelServer({
      script: (request) => ({ text: `echo ${(request.json as { model: string }).model}` }),
    });
    try {
      scripted.enqueue({ text: 'queued first' });
      const first = await post2(scripted, { model: 'a', messages: user });
      const second = await post2(scripted, { model: 'b', messages: user });
      expect(first.choices[0]?.message.content).toBe('queued first');
      expect(second.choices[0]?.message.content).toBe('echo b');
      expect(scripted.requests.map((r) => [r.method, r.path, r.provider, r.stream, r.outcome])).toEqual([
        ['POST', '/v1/chat/completions', 'openai', false, 'completed'],
        ['POST', '/v1/chat/completions', 'openai', false, 'completed'],
      ]);
    } finally {
      await scripted.close();
    }
  });

  it('answers 500 when nothing is scripted and 404 for unknown routes', async () => {
    server.reset();
    expect((await post('/v1/chat/completions', { model: 'm', messages: user })).status).toBe(500);
    expect((await post('/v1/embeddings', {})).status).toBe(404);
  });

  it('streams OpenAI chunks with a usage chunk only when include_usage is asked', async () => {
    server.reset();
    server.enqueue({ text: 'hi there', usage: { inputTokens: 3, outputTokens: 2 } }, { text: 'hi there' });
    const withUsage = await (
      await post('/v1/chat/completions', {
        model: 'm',
        messages: user,
        stream: true,
        stream_options: { include_usage: true },
      })
    ).text();
    const without = await (await post('/v1/chat/completions', { model: 'm', messages: user, stream: true })).text();
    expect(withUsage).toContain('"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}');
    expect(withUsage.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(without).not.toContain('prompt_tokens');
  });

  it('close() ends hanging exchanges', async () => {
    const scripted = await startScriptedModelServer();
    scripted.enqueue({ kind: 'hang' });
    const pending = fetch(`${scripted.openAIBaseURL}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: user }),
    }).catch((error: unknown) => error);
    await scripted.waitForRequests(1);
    await scripted.close();
    expect(await pending).toBeInstanceOf(Error);
    expect(await scripted.requests[0]?.settled).toBe('server-closed');
  });
});

async function post2(
  target: ScriptedModelServer,
  body: unknown,
): Promise<{ choices: { message: { content: string } }[] }> {
  const response = await fetch(`${target.openAIBaseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { choices: { message: { content: string } }[] };
}
