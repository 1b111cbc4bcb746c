import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import type { ScriptedReply } from '../support/scripted-model-server.js';
import { body, collect, ofType, openAI, shape, toolbox, useScriptedServer } from './helpers.js';

const server = useScriptedServer();

const toolTurn = (usage: { inputTokens: number; outputTokens: number }, delayMs = 0): ScriptedReply => ({
  toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }],
  usage,
  ...(delayMs ? { delayMs } : {}),
});

describe('BudgetLimits', () => {
  it('tokens: after the reported usage crosses the limit, the next turn is refused', async () => {
    const { registry } = toolbox();
    server.current.enqueue(toolTurn({ inputTokens: 80, outputTokens: 30 }));
    const run = new BareLoop({ client: openAI(server.current), registry, config: { budget: { maxTokens: 100 } } }).run(
      'weather',
    );
    const events = await collect(run);
    expect(server.current.requests).toHaveLength(1);
    expect(shape(events).slice(-2)).toEqual(['budget_stop', 'done']);
    expect(ofType(events, 'budget_stop')[0]).toMatchObject({
      turn: 1,
      refusal: { limit: 'tokens', used: 110, max: 100 },
    });
    const result = await run.result();
    expect(result).toMatchObject({ stopReason: 'budget', turns: 1, usage: { inputTokens: 80, outputTokens: 30 } });
    // The tool call was answered before the stop: the transcript is resumable.
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('tokens: usage under the limit lets the run continue', async () => {
    const { registry } = toolbox();
    server.current.enqueue(toolTurn({ inputTokens: 40, outputTokens: 10 }), {
      text: 'Sunny.',
      usage: { inputTokens: 45, outputTokens: 3 },
    });
    const run = new BareLoop({ client: openAI(server.current), registry, config: { budget: { maxTokens: 100 } } }).run(
      'weather',
    );
    const events = await collect(run);
    expect(ofType(events, 'budget_stop')).toEqual([]);
    expect((await run.result()).stopReason).toBe('stop');
    expect(server.current.requests).toHaveLength(2);
  });

  it('wall-clock: a turn that outlasts the limit stops the run before the next request', async () => {
    const { registry } = toolbox();
    server.current.enqueue(toolTurn({ inputTokens: 1, outputTokens: 1 }, 60));
    const run = new BareLoop({
      client: openAI(server.current),
      registry,
      config: { budget: { maxWallClockMs: 30 } },
    }).run('weather');
    const events = await collect(run);
    const stop = ofType(events, 'budget_stop')[0];
    expect(stop?.refusal.limit).toBe('wall_clock');
    expect(stop?.refusal.max).toBe(30);
    expect(stop?.refusal.used).toBeGreaterThanOrEqual(60);
    expect((await run.result()).stopReason).toBe('budget');
    expect(server.current.requests).toHaveLength(1);
  });

  it('turns: the budget admits that many requests, then refuses', async () => {
    const { registry } = toolbox();
    server.current.enqueue(
      toolTurn({ inputTokens: 1, outputTokens: 1 }),
      toolTurn({ inputTokens: 1, outputTokens: 1 }),
    );
    const run = new BareLoop({ client: openAI(server.current), registry, config: { budget: { maxTurns: 2 } } }).run(
      'weather',
    );
    const events = await collect(run);
    expect(ofType(events, 'budget_stop')[0]).toMatchObject({ turn: 2, refusal: { limit: 'turns', used: 2, max: 2 } });
    expect(await run.result()).toMatchObject({ stopReason: 'budget', turns: 2 });
    expect(server.current.requests).toHaveLength(2);
  });

  it('config.maxTurns ends the run with max_turns, without a budget event', async () => {
    const { registry } = toolbox();
    server.current.enqueue(
      toolTurn({ inputTokens: 1, outputTokens: 1 }),
      toolTurn({ inputTokens: 1, outputTokens: 1 }),
    );
    const run = new BareLoop({ client: openAI(server.current), registry, config: { maxTurns: 2 } }).run('weather');
    const events = await collect(run);
    expect(ofType(events, 'budget_stop')).toEqual([]);
    expect(ofType(events, 'done')[0]).toMatchObject({ stopReason: 'max_turns', turns: 2 });
    expect(server.current.requests).toHaveLength(2);
  });

  it('config fields set to undefined keep their defaults: 10 turns, streamed', async () => {
    const { registry } = toolbox();
    server.current.enqueue(...Array.from({ length: 10 }, () => toolTurn({ inputTokens: 1, outputTokens: 1 })));
    const config = { maxTurns: undefined, stream: undefined, contextWindow: undefined, constraint: undefined };
    const run = new BareLoop({ client: openAI(server.current), registry, config }).run('weather');
    const events = await collect(run);
    expect(ofType(events, 'done')[0]).toMatchObject({ stopReason: 'max_turns', turns: 10 });
    expect(server.current.requests).toHaveLength(10);
    expect(body(server.current.requests[0])).toMatchObject({ stream: true });
  });

  it('an invalid limit is reported through the run (error event, then done), not thrown', async () => {
    const { registry } = toolbox();
    const run = new BareLoop({ client: openAI(server.current), registry, config: { budget: { maxTokens: -1 } } }).run(
      'weather',
    );
    const events = await collect(run);
    expect(shape(events)).toEqual(['run_start', 'error', 'done']);
    expect(ofType(events, 'error')[0]?.message).toMatch(/maxTokens/);
    const result = await run.result();
    expect(result.stopReason).toBe('error');
    expect(server.current.requests).toHaveLength(0);
  });
});
