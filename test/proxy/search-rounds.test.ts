/**
 * The server-side search's rounds on their own (`search-rounds.ts` with the Chat Completions
 * codec): what the proxy answers the model, when it stops, and what the client gets.
 */
import { describe, expect, it } from 'vitest';
import { chatRounds } from '../../src/hono/proxy/chat-rounds.js';
import type { SearchRounds } from '../../src/hono/proxy/search-rounds.js';
import { jsonRounds, MAX_SEARCH_ROUNDS } from '../../src/hono/proxy/search-rounds.js';
import type { ToolSchema } from '../../src/registry/schema.js';

const weather: ToolSchema = { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object' } };

function completion(calls: { id: string; name: string; args: unknown }[], text: string | null = null): Response {
  const message = {
    role: 'assistant',
    content: text,
    ...(calls.length
      ? {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.args) },
          })),
        }
      : {}),
  };
  return Response.json({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 },
  });
}

/** Rounds whose upstream answers from `script` and records every body it was sent. */
function rounds(script: Response[], overrides: Partial<SearchRounds> = {}): { rounds: SearchRounds; bodies: string[] } {
  const bodies: string[] = [];
  return {
    bodies,
    rounds: {
      codec: chatRounds,
      meta: { search: 'find_tools', call: 'call_tool' },
      registered: new Set(['get_weather', 'send_email']),
      surface: new Set(['send_email']),
      declareFound: false,
      keepAliveMs: 1000,
      body: (appended) =>
        JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, ...appended.map((entry) => JSON.parse(entry))] }),
      send: async (body) => {
        bodies.push(body);
        const next = script.shift();
        if (!next) throw new Error('no more answers');
        return next;
      },
      search: async () => [weather],
      ...overrides,
    },
  };
}

const answerOf = (outcome: Awaited<ReturnType<typeof jsonRounds>>) => {
  if (outcome.kind !== 'answer') throw new Error('expected an answer');
  return JSON.parse(outcome.body);
};

describe('server-side search rounds', () => {
  it('search, then call_tool: the client gets a call of its own tool, usage summed, the search exchange appended upstream', async () => {
    const { rounds: r, bodies } = rounds([
      completion([{ id: 'c2', name: 'call_tool', args: { name: 'get_weather', arguments: { city: 'Oslo' } } }]),
    ]);
    const outcome = await jsonRounds(
      r,
      completion([{ id: 'c1', name: 'find_tools', args: { query: 'weather' } }], 'Looking.'),
    );
    const answer = answerOf(outcome);
    expect(outcome.kind === 'answer' && outcome.rounds).toBe(2);
    expect(answer.choices[0].message.tool_calls).toEqual([
      { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
    ]);
    expect(answer.choices[0].message.content).toBe('Looking.');
    expect(answer.usage).toEqual({ prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 });
    const sent = JSON.parse(bodies[0] as string).messages;
    expect(sent[1]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'c1', function: { name: 'find_tools' } }] });
    expect(sent[2].role).toBe('tool');
    expect(JSON.parse(sent[2].content)).toEqual({
      tools: [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object' } }],
      call_with: 'call_tool',
    });
  });

  it('a client call made with a search is not run but answered, and the model asked again; an unknown call_tool name is an error to the model', async () => {
    const { rounds: r, bodies } = rounds([
      completion([{ id: 'c3', name: 'call_tool', args: { name: 'nope', arguments: {} } }]),
      completion([], 'Done.'),
    ]);
    const outcome = await jsonRounds(
      r,
      completion([
        { id: 'c1', name: 'find_tools', args: { query: 'weather' } },
        { id: 'c2', name: 'send_email', args: { to: 'ana' } },
      ]),
    );
    expect(answerOf(outcome).choices[0].message).toMatchObject({ content: 'Done.' });
    const first = JSON.parse(bodies[0] as string).messages;
    expect(
      first.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content)[1],
    ).toMatch(/^Not run/);
    const second = JSON.parse(bodies[1] as string).messages;
    expect(second.at(-1).content).toMatch(/no tool is called "nope"/);
  });

  it('a failed search is an error to the model, not to the client', async () => {
    const { rounds: r, bodies } = rounds([completion([], 'Sorry.')], {
      search: async () => {
        throw new Error('index unavailable');
      },
    });
    const outcome = await jsonRounds(r, completion([{ id: 'c1', name: 'find_tools', args: { query: 'weather' } }]));
    expect(answerOf(outcome).choices[0].message.content).toBe('Sorry.');
    expect(JSON.parse(bodies[0] as string).messages.at(-1).content).toMatch(
      /the tool search failed \(index unavailable\)/,
    );
  });

  it(`stops after ${MAX_SEARCH_ROUNDS} rounds: the client gets no proxy tool, and a stop`, async () => {
    const search = () => completion([{ id: 'cx', name: 'find_tools', args: { query: 'again' } }], 'Hmm.');
    const { rounds: r, bodies } = rounds([search(), search(), search(), search()]);
    const outcome = await jsonRounds(r, search());
    expect(bodies).toHaveLength(MAX_SEARCH_ROUNDS - 1);
    const message = answerOf(outcome).choices[0];
    expect(message.message.tool_calls).toBeUndefined();
    expect(message.finish_reason).toBe('stop');
  });

  it('an upstream error in a later round reaches the client as it is', async () => {
    const { rounds: r } = rounds([
      new Response('{"error":{"message":"busy"}}', {
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '3' },
      }),
    ]);
    const outcome = await jsonRounds(r, completion([{ id: 'c1', name: 'find_tools', args: { query: 'weather' } }]));
    expect(outcome.kind).toBe('upstream');
    if (outcome.kind === 'upstream') expect(outcome.response.status).toBe(429);
  });
});
