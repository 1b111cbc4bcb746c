/**
 * `loopctl/gemini` with the real `@google/genai` 3.6.1 client (`ai.interactions.create`) against
 * the scripted model server's Interactions wire: Tool Retrieval with a client-executed
 * `tool_search`, loopctl's ranking behind it, as JSON and as SSE; what the search does with bad
 * arguments and unknown names; and what the server refuses as the API does.
 */
import { GoogleGenAI, type Interactions } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { type GeminiSearchCall, geminiToolSearch } from '../../src/adapters/gemini-tool-search.js';
import type { AsyncToolSelector } from '../../src/select/selector.js';
import { body, useScriptedServer } from '../loop/helpers.js';

const server = useScriptedServer();
const schema = { type: 'object' as const, properties: { to: { type: 'string' }, city: { type: 'string' } } };
const TOOLS = [
  { name: 'get_weather', description: 'Current weather and forecast for a city.' },
  { name: 'send_email', description: 'Send an email message to a recipient.' },
  { name: 'stock_price', description: 'Latest trading price of a stock ticker.' },
  { name: 'read_email', description: 'Read an email message from the inbox.' },
].map((t) => ({ type: 'function' as const, ...t, parameters: schema }));

type Step = Interactions.Step;
const client = () => new GoogleGenAI({ apiKey: 'gemini-test', httpOptions: { baseUrl: server.current.url } });
const ask = (text: string): Step[] => [{ type: 'user_input', content: [{ type: 'text', text }] }];
const call = (args: unknown, id = 'ts_x'): GeminiSearchCall => ({ type: 'tool_search_call', id, arguments: args });
const once = { retries: { strategy: 'none' as const } }; // the SDK retries a 5xx by default

describe('loopctl/gemini with @google/genai (Interactions API)', () => {
  it('declares the rest deferred; the search reveals the right tool; the model calls it; the turn ends', async () => {
    const ai = client();
    const search = geminiToolSearch({ k: 1 });
    const tools = search.tools(TOOLS, ['get_weather']);
    expect(tools.at(-1)).toMatchObject({ type: 'tool_search', execution: 'client', name: 'find_tools' });
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'send an email message' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'send_email', arguments: { to: 'kim' } }] },
      { text: 'Emailed Kim.' },
    );
    const steps = ask('Email Kim the forecast.');
    const model = 'gemini-scripted';
    const first = await ai.interactions.create({ model, input: steps, tools, store: false });
    expect(first.status).toBe('requires_action');
    expect(server.current.requests[0]?.path).toBe('/v1/interactions');
    expect(server.current.requests[0]?.seenTools).toEqual(['get_weather']);
    expect(server.current.requests[0]?.deferredTools).toEqual(['send_email', 'stock_price', 'read_email']);
    for (const step of first.steps ?? []) if (search.handles(step)) steps.push(step, await search.handle(step, tools));
    expect(steps.at(-1)).toEqual({
      type: 'tool_search_result',
      call_id: 'ts_1',
      result: [
        {
          type: 'function',
          name: 'send_email',
          description: 'Send an email message to a recipient.',
          parameters: schema,
        },
      ],
    });

    const second = await ai.interactions.create({ model, input: steps, tools, store: false });
    expect(server.current.requests[1]?.rejected).toBeUndefined();
    expect(server.current.requests[1]?.seenTools).toEqual(['get_weather', 'send_email']);
    const fc = second.steps?.find((step) => step.type === 'function_call');
    expect(fc).toMatchObject({ type: 'function_call', id: 'fc_1', name: 'send_email', arguments: { to: 'kim' } });
    steps.push(fc as Step, { type: 'function_result', call_id: 'fc_1', name: 'send_email', result: 'sent' });

    const third = await ai.interactions.create({ model, input: steps, tools, store: false });
    expect(server.current.requests[2]?.rejected).toBeUndefined();
    expect(third.status).toBe('completed');
    expect(third.output_text).toBe('Emailed Kim.');
  });

  it('goes on from a stored interaction (previous_interaction_id), sending only the new steps', async () => {
    const ai = client();
    const search = geminiToolSearch({ k: 1 });
    const tools = search.tools(TOOLS, ['get_weather']);
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 'latest stock price' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'stock_price', arguments: {} }] },
      { text: 'ACME is at 42.' },
    );
    const model = 'gemini-scripted';
    const answer = async (step: Step): Promise<Step[]> => {
      if (search.handles(step)) return [await search.handle(step, tools)];
      if (step.type === 'function_call') return [{ type: 'function_result', call_id: step.id, result: '42' }];
      return [];
    };
    let interaction = await ai.interactions.create({ model, input: 'What is ACME trading at?', tools });
    while (interaction.status === 'requires_action') {
      const input = (await Promise.all((interaction.steps ?? []).map(answer))).flat();
      interaction = await ai.interactions.create({ model, previous_interaction_id: interaction.id, input, tools });
    }
    expect(interaction.output_text).toBe('ACME is at 42.');
    const [first, second, third] = server.current.requests;
    expect([first, second, third].map((request) => request?.rejected)).toEqual([undefined, undefined, undefined]);
    expect(body(second).input).toEqual([expect.objectContaining({ type: 'tool_search_result' })]);
    expect(second?.seenTools).toEqual(['get_weather', 'stock_price']);
    expect(third?.seenTools).toEqual(['get_weather', 'stock_price']);
    // An interaction the server does not hold is a 404, and uses no reply.
    await expect(
      ai.interactions.create({ model, previous_interaction_id: 'int_gone', input: 'hi', tools }, once),
    ).rejects.toThrow(/int_gone was not found/);
  });

  it('streams: the tool_search_call arrives as step events the handler answers', async () => {
    const ai = client();
    const search = geminiToolSearch({ k: 2 });
    const tools = search.tools(TOOLS, []);
    server.current.enqueue({
      text: 'Looking.',
      toolCalls: [{ id: 'ts_s', kind: 'tool_search', name: '', arguments: { query: 'read my email inbox' } }],
    });
    const stream = await ai.interactions.create({
      model: 'gemini-scripted',
      input: ask('Anything from Kim?'),
      tools,
      store: false,
      stream: true,
    });
    const started: Step[] = [];
    const deltas: unknown[] = [];
    let status: string | undefined;
    for await (const event of stream) {
      if (event.event_type === 'step.start') started.push(event.step);
      if (event.event_type === 'step.delta') deltas.push(event.delta);
      if (event.event_type === 'interaction.completed') status = event.interaction.status;
    }
    expect(server.current.requests[0]?.stream).toBe(true);
    expect(status).toBe('requires_action');
    expect(started.map((step) => step.type)).toEqual(['model_output', 'tool_search_call']);
    const args = deltas.find((d): d is { type: 'tool_search_call'; arguments: unknown } => {
      return (d as { type?: string }).type === 'tool_search_call';
    });
    expect(args?.arguments).toEqual({ query: 'read my email inbox' });
    const answer = await search.handle({ ...(started[1] as GeminiSearchCall), arguments: args?.arguments }, tools);
    expect(answer.call_id).toBe('ts_s');
    expect(answer.result.map((fn) => fn.name)[0]).toBe('read_email');
  });

  it('a search for nothing loads nothing, says nothing is wrong, and the conversation goes on', async () => {
    const errors: string[] = [];
    const search = geminiToolSearch({ onError: (message) => errors.push(message) });
    const tools = search.tools(TOOLS, ['get_weather']);
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_0', kind: 'tool_search', name: '', arguments: { query: 'zzzz qqqq' } }] },
      { text: 'I have no tool for that.' },
    );
    const ai = client();
    const steps = ask('Do the impossible.');
    const first = await ai.interactions.create({ model: 'gemini-scripted', input: steps, tools, store: false });
    for (const step of first.steps ?? []) if (search.handles(step)) steps.push(step, await search.handle(step, tools));
    expect(steps.at(-1)).toEqual({ type: 'tool_search_result', call_id: 'ts_0', result: [] });
    expect(errors).toEqual([]);
    const second = await ai.interactions.create({ model: 'gemini-scripted', input: steps, tools, store: false });
    expect(second.output_text).toBe('I have no tool for that.');
    expect(server.current.requests[1]?.seenTools).toEqual(['get_weather']);
  });

  it('malformed arguments load nothing and say why; names beside a bad query are still served', async () => {
    const errors: string[] = [];
    const search = geminiToolSearch({ onError: (message) => errors.push(message) });
    const tools = search.tools(TOOLS, []);
    for (const bad of [undefined, {}, { query: '  ' }, { query: 42 }, 'send email']) {
      errors.length = 0;
      expect((await search.handle(call(bad), tools)).result).toEqual([]);
      expect(errors).toEqual([expect.stringMatching(/non-empty "query".*"function_names"/)]);
    }
    errors.length = 0;
    expect((await search.handle(call({ function_names: 'send_email' }), tools)).result).toEqual([]);
    expect(errors).toEqual([
      expect.stringMatching(/"function_names" must be an array/),
      expect.stringMatching(/query/),
    ]);
    errors.length = 0;
    const kept = await search.handle(call({ query: '', function_names: ['send_email'] }), tools);
    expect(kept.result.map((fn) => fn.name)).toEqual(['send_email']);
    expect(errors).toEqual([expect.stringMatching(/non-empty "query"/)]);

    // Over the wire: the empty answer is a valid step, and a second search still finds the tool.
    server.current.enqueue(
      { toolCalls: [{ id: 'ts_1', kind: 'tool_search', name: '', arguments: { query: 7 } }] },
      { toolCalls: [{ id: 'ts_2', kind: 'tool_search', name: '', arguments: { query: 'latest stock price' } }] },
      { toolCalls: [{ id: 'fc_1', name: 'stock_price', arguments: {} }] },
    );
    const ai = client();
    const steps = ask('What is ACME trading at?');
    for (let turn = 0; turn < 3; turn++) {
      const reply = await ai.interactions.create({ model: 'gemini-scripted', input: steps, tools, store: false });
      for (const step of reply.steps ?? [])
        if (search.handles(step)) steps.push(step, await search.handle(step, tools));
    }
    expect(server.current.requests.map((request) => request.rejected)).toEqual([undefined, undefined, undefined]);
    expect(server.current.requests[1]?.seenTools).toEqual([]);
    expect(server.current.requests[2]?.seenTools).toEqual(['stock_price']);
  });

  it('loads tools by name as the hosted search asks; unknown names are reported, not invented', async () => {
    const errors: string[] = [];
    const search = geminiToolSearch({ onError: (message) => errors.push(message) });
    const tools = search.tools(TOOLS, ['get_weather']);
    const found = await search.handle(
      call({ function_names: ['stock_price', 'delete_everything', 'get_weather'] }),
      tools,
    );
    expect(found.result.map((fn) => fn.name)).toEqual(['stock_price']);
    expect(errors).toEqual(['no deferred tool named "delete_everything", "get_weather"']);
    // Names first, then loopctl's ranking of the rest for the query.
    const both = await geminiToolSearch({ k: 1 }).handle(
      call({ function_names: ['stock_price'], query: 'read an email from the inbox' }),
      tools,
    );
    expect(both.result.map((fn) => fn.name)).toEqual(['stock_price', 'read_email']);
    expect(search.handles({ type: 'function_call' })).toBe(false);
  });

  it('a failed ranking loads nothing more and says why', async () => {
    const errors: string[] = [];
    const broken: AsyncToolSelector = {
      name: 'broken',
      select: () => {
        throw new Error('index gone');
      },
    };
    const search = geminiToolSearch({ selector: broken, onError: (message) => errors.push(message) });
    const tools = search.tools(TOOLS, []);
    const out = await search.handle(call({ query: 'email', function_names: ['read_email'] }), tools);
    expect(out.result.map((fn) => fn.name)).toEqual(['read_email']);
    expect(errors).toEqual([expect.stringMatching(/^tool search failed: .*index gone/)]);
    expect(() => geminiToolSearch({ k: 0 })).toThrow(RangeError);
  });
});

describe('the scripted Interactions API refuses what Gemini refuses', () => {
  const model = 'gemini-scripted';
  const rejects = async (body: Record<string, unknown>, message: RegExp) => {
    server.current.reset();
    server.current.enqueue({ text: 'unused' });
    await expect(client().interactions.create({ model, store: false, ...body } as never)).rejects.toThrow(message);
    expect(server.current.requests[0]?.rejected).toMatch(message);
    server.current.reset();
  };

  it('a call to a deferred tool no search loaded, whether the model or the history makes it', async () => {
    const tools = geminiToolSearch().tools(TOOLS, ['get_weather']);
    // The scripted model cannot call what it has not been shown (the script is refused).
    server.current.enqueue({ toolCalls: [{ id: 'fc_x', name: 'send_email', arguments: { to: 'kim' } }] });
    await expect(
      client().interactions.create({ model, input: ask('Email Kim.'), tools, store: false }, once),
    ).rejects.toThrow(/send_email, a deferred tool this request has not revealed/);
    expect(server.current.requests).toHaveLength(1);
    // A history carrying such a call (a hallucination the client ran anyway) is a 400.
    const hallucinated: Step[] = [
      ...ask('Email Kim.'),
      { type: 'function_call', id: 'fc_h', name: 'send_email', arguments: { to: 'kim' } },
      { type: 'function_result', call_id: 'fc_h', result: 'sent' },
    ];
    await rejects({ input: hallucinated, tools }, /send_email is deferred and was not loaded by a tool search/);
  });

  it('deferred tools without a tool_search, two searches, a bad name, unanswered or unmatched calls', async () => {
    const deferred = TOOLS.map((t) => ({ ...t, defer_loading: true }));
    await rejects({ input: 'hi', tools: deferred }, /defer_loading require a tool_search/);
    const two = [{ type: 'tool_search' }, { type: 'tool_search' }];
    await rejects({ input: 'hi', tools: two }, /at most one tool_search/);
    await rejects({ input: 'hi', tools: [{ type: 'tool_search', name: 'x' }] }, /only for client-side execution/);
    await rejects({ input: 'hi', tools: [{ type: 'function', name: '1bad name' }] }, /Invalid function name/);
    const open: Step[] = [...ask('hi'), { type: 'function_call', id: 'c1', name: 'get_weather', arguments: {} }];
    await rejects({ input: open, tools: TOOLS }, /the call c1 has no result/);
    const stray: Step[] = [...ask('hi'), { type: 'tool_search_result', call_id: 'nope', result: [] }];
    await rejects({ input: stray, tools: geminiToolSearch().tools(TOOLS, []) }, /no tool_search_call with id nope/);
  });
});
