import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import type { LoopEvent } from '../../src/loop/events.js';
import { toolsCost } from '../../src/registry/tool-cost.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { approxTokenCounter } from '../../src/tokens/token-counter.js';
import {
  collect,
  named,
  ofType,
  onTurn,
  openAI,
  recordingAsyncSelector,
  recordingSelector,
  shape,
  toolbox,
  useScriptedServer,
  wireToolNames,
} from './helpers.js';

const server = useScriptedServer();

describe('BareLoop events', () => {
  it('reports a two-turn run as typed events in order, and result() gives the answer and totals', async () => {
    const { registry, calls } = toolbox();
    server.current.enqueue(
      {
        text: 'Let me check.',
        toolCalls: [{ id: 'call_w', name: 'get_weather', arguments: { city: 'Oslo' } }],
        usage: { inputTokens: 120, outputTokens: 15 },
      },
      { text: 'It is sunny in Oslo.', usage: { inputTokens: 160, outputTokens: 7 } },
    );
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector(
      new StaticSelector(['get_weather', 'search_docs']),
    );
    const run = loop.run('What is the weather in Oslo?');
    const events = await collect(run);

    expect(shape(events)).toEqual([
      'run_start',
      'turn_start',
      'selection',
      'request',
      'text',
      'usage',
      'tool_call',
      'tool_result',
      'estimate',
      'turn_start',
      'selection',
      'request',
      'text',
      'usage',
      'done',
    ]);
    expect(events[0]).toEqual({
      type: 'run_start',
      prompt: 'What is the weather in Oslo?',
      registered: 4,
      selector: 'static',
      constraint: 'auto',
    });

    const selection = onTurn(events, 'selection', 1);
    const all = registry.schemas();
    expect(selection).toMatchObject({
      advertised: ['get_weather', 'search_docs'],
      registered: 4,
      advertisedTokens: toolsCost(named(all, 'get_weather', 'search_docs'), approxTokenCounter),
      registryTokens: toolsCost(all, approxTokenCounter),
      selector: 'static',
      fellOpen: null,
    });
    expect(selection.advertisedTokens).toBeLessThan(selection.registryTokens);

    expect(onTurn(events, 'request', 1)).toMatchObject({
      provider: 'openai',
      model: 'scripted-model',
      messages: 1,
      tools: 2,
      contextWindow: 128_000,
    });
    expect(onTurn(events, 'request', 2)).toMatchObject({ messages: 3, tools: 2 });

    const texts = ofType(events, 'text');
    expect(
      texts
        .filter((e) => e.turn === 1)
        .map((e) => e.delta)
        .join(''),
    ).toBe('Let me check.');
    expect(
      texts
        .filter((e) => e.turn === 2)
        .map((e) => e.delta)
        .join(''),
    ).toBe('It is sunny in Oslo.');
    expect(texts.length).toBeGreaterThan(2); // streamed as deltas, not one block

    expect(ofType(events, 'tool_call')).toEqual([
      {
        type: 'tool_call',
        turn: 1,
        call: { id: 'call_w', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        advertised: true,
      },
    ]);
    expect(ofType(events, 'tool_result')[0]).toMatchObject({
      turn: 1,
      result: { toolCallId: 'call_w', name: 'get_weather', content: 'Sunny in Oslo', isError: false },
    });
    expect(calls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);

    expect(ofType(events, 'usage').map((e) => [e.turn, e.usage, e.totalTokens, e.finishReason])).toEqual([
      [1, { inputTokens: 120, outputTokens: 15 }, 135, 'tool_calls'],
      [2, { inputTokens: 160, outputTokens: 7 }, 302, 'stop'],
    ]);
    const done = events[events.length - 1];
    expect(done).toEqual({
      type: 'done',
      stopReason: 'stop',
      text: 'It is sunny in Oslo.',
      turns: 2,
      usage: { inputTokens: 280, outputTokens: 22 },
    });

    const result = await run.result();
    expect(result).toMatchObject({
      text: 'It is sunny in Oslo.',
      stopReason: 'stop',
      turns: 2,
      usage: { inputTokens: 280, outputTokens: 22 },
    });
    expect(result.error).toBeUndefined();
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(result.messages[2]).toEqual({
      role: 'tool',
      toolCallId: 'call_w',
      name: 'get_weather',
      content: 'Sunny in Oslo',
    });
    // Events are plain JSON: an SSE endpoint can forward them unchanged.
    expect(JSON.parse(JSON.stringify(events)) as LoopEvent[]).toEqual(events);
  });

  it('result() works without iterating, and a run can be iterated only once', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'Hello.' });
    const run = new BareLoop({ client: openAI(server.current), registry }).run('hi');
    const result = await run.result();
    expect(result).toMatchObject({ text: 'Hello.', stopReason: 'stop', turns: 1 });
    const events = await collect(run); // events were queued while nobody listened
    expect(events.map((e) => e.type)).toContain('done');
    await expect(collect(run)).rejects.toThrow(/iterated once/);
  });

  it('accepts a message list and continues from it; the prompt is its last user message', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'Still sunny.' });
    const history = [
      { role: 'user' as const, content: 'Weather in Oslo?' },
      { role: 'assistant' as const, content: 'Sunny.' },
      { role: 'user' as const, content: 'And now?' },
    ];
    const run = new BareLoop({ client: openAI(server.current), registry }).run(history);
    const events = await collect(run);
    expect(ofType(events, 'run_start')[0]?.prompt).toBe('And now?');
    expect((server.current.requests[0]?.json as { messages?: unknown } | undefined)?.messages).toEqual([
      { role: 'user', content: 'Weather in Oslo?' },
      { role: 'assistant', content: 'Sunny.' },
      { role: 'user', content: 'And now?' },
    ]);
    expect((await run.result()).messages).toHaveLength(4);
  });

  it('a selector that falls open says why in the selection event and warns', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'Hmm.' });
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector(new KeywordSelector());
    const events = await collect(loop.run('zzyzx quux'));
    const selection = onTurn(events, 'selection', 1);
    expect(selection.fellOpen).toBe('no tool matched the prompt');
    expect(selection.advertised).toEqual(registry.schemas().map((t) => t.name));
    expect(ofType(events, 'warning').map((w) => w.message)).toEqual(['selector fell open: no tool matched the prompt']);
    expect(wireToolNames(server.current.requests[0])).toHaveLength(4);
  });

  it('reports the constraint in run_start', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'ok' });
    const loop = new BareLoop({
      client: openAI(server.current),
      registry,
      config: { constraint: ToolConstraint.Strict },
    });
    const events = await collect(loop.run('hi'));
    expect(events[0]).toMatchObject({ type: 'run_start', constraint: 'strict', selector: null });
  });
});

describe('installing selectors', () => {
  it('configuring an async selector clears the sync one, and the reverse', async () => {
    const { registry } = toolbox();
    const sync = recordingSelector((_ctx, all) => named(all, 'get_weather'), 'sync-one');
    const async = recordingAsyncSelector(async (_ctx, all) => named(all, 'search_docs'), 'async-one');
    const loop = new BareLoop({ client: openAI(server.current), registry });

    expect(loop.withToolSelector(sync).withAsyncToolSelector(async)).toBe(loop);
    expect(loop.toolSelector).toBe(async);
    server.current.enqueue({ text: 'a' });
    let events = await collect(loop.run('first'));
    expect(onTurn(events, 'selection', 1)).toMatchObject({ selector: 'async-one', advertised: ['search_docs'] });
    expect([sync.contexts.length, async.contexts.length]).toEqual([0, 1]);
    expect(wireToolNames(server.current.requests[0])).toEqual(['search_docs']);

    loop.setToolSelector(sync);
    expect(loop.toolSelector).toBe(sync);
    server.current.enqueue({ text: 'b' });
    events = await collect(loop.run('second'));
    expect(onTurn(events, 'selection', 1)).toMatchObject({ selector: 'sync-one', advertised: ['get_weather'] });
    expect([sync.contexts.length, async.contexts.length]).toEqual([1, 1]);

    loop.setAsyncToolSelector(async);
    expect(loop.toolSelector).toBe(async);
    loop.setAsyncToolSelector(undefined);
    expect(loop.toolSelector).toBeUndefined();
    server.current.enqueue({ text: 'c' });
    events = await collect(loop.run('third'));
    expect(onTurn(events, 'selection', 1)).toMatchObject({
      selector: null,
      advertised: registry.schemas().map((t) => t.name),
    });
    expect([sync.contexts.length, async.contexts.length]).toEqual([1, 1]);
  });

  it('a run keeps the selector it started with; a change applies from the next run', async () => {
    const { registry } = toolbox();
    const first = recordingSelector((_ctx, all) => named(all, 'get_weather'), 'first');
    const second = recordingSelector((_ctx, all) => named(all, 'search_docs'), 'second');
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector(first);
    server.current.enqueue(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'done' },
      { text: 'next run' },
    );
    const events: LoopEvent[] = [];
    for await (const event of loop.run('weather')) {
      events.push(event);
      if (event.type === 'selection' && event.turn === 1) loop.setToolSelector(second);
    }
    // run_start announced "first": turn 2 is served, and reported, by that selector.
    expect(onTurn(events, 'selection', 2)).toMatchObject({ selector: 'first', advertised: ['get_weather'] });
    expect(wireToolNames(server.current.requests[1])).toEqual(['get_weather']);
    expect([first.contexts.length, second.contexts.length]).toEqual([2, 0]);

    const next = await collect(loop.run('weather again'));
    expect(onTurn(next, 'selection', 1)).toMatchObject({ selector: 'second', advertised: ['search_docs'] });
    expect(second.contexts).toHaveLength(1);
  });
});
