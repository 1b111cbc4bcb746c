import { describe, expect, it } from 'vitest';
import { BareLoop, type LoopConfig, type RunOptions } from '../../src/loop/bare-loop.js';
import { contextFit, messageCost } from '../../src/loop/estimate.js';
import { toolResultCompactor } from '../../src/loop/managers.js';
import type { Message } from '../../src/message.js';
import { toolsCost } from '../../src/registry/tool-cost.js';
import type { ToolSelector } from '../../src/select/selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { approxTokenCounter } from '../../src/tokens/token-counter.js';
import type { ScriptedReply } from '../support/scripted-model-server.js';
import { collect, named, ofType, onTurn, openAI, schemas, toolbox, useScriptedServer, wideTool } from './helpers.js';

const server = useScriptedServer();
const counter = approxTokenCounter;
const PROMPT = 'What is the weather in Oslo?';

/** The toolbox plus six wide tools, so the registry's rendered cost dwarfs one schema's. */
function wideToolbox(overrides = {}) {
  const box = toolbox(overrides);
  for (let i = 0; i < 6; i++) box.registry.register(wideTool(`wide_${i}`, 800), () => 'wide');
  return box;
}

const weatherCall = (usage: { inputTokens: number; outputTokens: number } | false): ScriptedReply => ({
  toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } }],
  usage,
});

async function runWith(
  selector: ToolSelector,
  replies: ScriptedReply[],
  config: LoopConfig = {},
  options: RunOptions = {},
) {
  const { registry } = wideToolbox();
  server.current.enqueue(...replies);
  const run = new BareLoop({ client: openAI(server.current), registry, config })
    .withToolSelector(selector)
    .run(PROMPT, options);
  const events = await collect(run);
  return { registry, events, result: await run.result() };
}

describe('what the estimate counts', () => {
  it('the opening, post-dispatch and pre-request figures count the advertised subset; the reservation keeps the full registry', async () => {
    const replies = (): ScriptedReply[] => [weatherCall(false), { text: 'Sunny.', usage: false }];
    const full = await runWith(new StaticSelector(), replies());
    const narrow = await runWith(new StaticSelector(['get_weather']), replies());
    const all = narrow.registry.schemas();
    const fullCost = toolsCost(all, counter);
    const weatherCost = toolsCost(named(all, 'get_weather'), counter);
    expect(fullCost - weatherCost).toBeGreaterThan(1000);

    // Opening (turn 1 pre-request): the prompt plus exactly the advertised schema.
    const opening = onTurn(narrow.events, 'request', 1);
    expect(opening.estimatedInputTokens).toBe(messageCost({ role: 'user', content: PROMPT }, counter) + weatherCost);
    expect(onTurn(full.events, 'request', 1).estimatedInputTokens).toBe(
      opening.estimatedInputTokens + fullCost - weatherCost,
    );

    // Post-dispatch re-feed: the transcript so far plus the advertised schema.
    const [user, reply, tool] = narrow.result.messages as Message[];
    const transcriptCost = [user, reply, tool].reduce((sum, m) => sum + messageCost(m as Message, counter), 0);
    const post = onTurn(narrow.events, 'estimate', 1);
    expect(post).toMatchObject({ phase: 'post_dispatch', anchored: false, tokens: transcriptCost + weatherCost });
    expect(onTurn(full.events, 'estimate', 1).tokens - post.tokens).toBe(fullCost - weatherCost);

    // Pre-request feed on turn 2: same.
    expect(onTurn(narrow.events, 'request', 2).estimatedInputTokens).toBe(transcriptCost + weatherCost);
    expect(
      onTurn(full.events, 'request', 2).estimatedInputTokens - onTurn(narrow.events, 'request', 2).estimatedInputTokens,
    ).toBe(fullCost - weatherCost);

    // The reservation alone keeps the full-registry figure.
    for (const { events } of [full, narrow]) {
      for (const turn of [1, 2])
        expect(onTurn(events, 'request', turn).fullSurfaceReservationTokens).toBe(fullCost + 4096);
    }
  });

  const anchoredCases: [string, LoopConfig, RunOptions][] = [
    ['plain', {}, {}],
    ['with a system prompt', { system: 'You are a weather assistant.' }, {}],
    ['with transients', {}, { transients: [{ role: 'user', content: 'Memory: the user lives in Oslo.' }] }],
  ];
  it.each(anchoredCases)(
    'a reported usage anchors the next estimate on the same surface (%s)',
    async (_label, config, options) => {
      const { events, result } = await runWith(
        new StaticSelector(['get_weather']),
        [
          weatherCall({ inputTokens: 5000, outputTokens: 20 }),
          { text: 'Sunny.', usage: { inputTokens: 5100, outputTokens: 3 } },
        ],
        config,
        options,
      );
      const [, reply, tool] = result.messages as Message[];
      const expected = 5000 + messageCost(reply as Message, counter) + messageCost(tool as Message, counter);
      expect(onTurn(events, 'request', 1).anchored).toBe(false);
      expect(onTurn(events, 'estimate', 1)).toMatchObject({ anchored: true, tokens: expected });
      expect(onTurn(events, 'request', 2)).toMatchObject({ anchored: true, estimatedInputTokens: expected });
    },
  );

  it('a change of advertised surface invalidates the anchor, so the figure can fall below the prior report', async () => {
    const plan: ToolSelector = {
      name: 'narrowing',
      select: (ctx, all) => (ctx.turn === 1 ? all : named(all, 'get_weather')),
    };
    const { events } = await runWith(plan, [
      weatherCall({ inputTokens: 9000, outputTokens: 20 }),
      { text: 'Sunny.', usage: false },
    ]);
    expect(onTurn(events, 'usage', 1).usage.inputTokens).toBe(9000);
    expect(onTurn(events, 'estimate', 1).anchored).toBe(true); // same surface as the request it follows
    const second = onTurn(events, 'request', 2);
    expect(second.anchored).toBe(false);
    expect(second.estimatedInputTokens).toBeLessThan(9000);
    expect(second.estimatedInputTokens).toBeLessThan(onTurn(events, 'request', 1).estimatedInputTokens);
  });
  it('a schema replaced under the same name between requests also changes the surface: no stale anchor', async () => {
    const longer = {
      ...schemas.search,
      description: `${schemas.search.description} ${'Covers every manual. '.repeat(200)}`,
    };
    const { registry } = toolbox({
      // The tool list changes mid-run (as an MCP server's can): same names, new rendered cost.
      get_weather: () => {
        registry.replace(longer, () => 'found');
        return 'Sunny';
      },
    });
    server.current.enqueue(weatherCall({ inputTokens: 5000, outputTokens: 20 }), { text: 'Sunny.', usage: false });
    const events = await collect(
      new BareLoop({ client: openAI(server.current), registry })
        .withToolSelector(new StaticSelector(['get_weather', 'search_docs']))
        .run(PROMPT),
    );
    expect(onTurn(events, 'selection', 2).advertised).toEqual(['get_weather', 'search_docs']);
    const second = onTurn(events, 'request', 2);
    expect(second.anchored).toBe(false);
    const advertised = toolsCost(named(registry.schemas(), 'get_weather', 'search_docs'), counter);
    expect(onTurn(events, 'selection', 2).advertisedTokens).toBe(advertised);
    expect(second.estimatedInputTokens).toBeGreaterThan(advertised);
    expect(server.current.requests[1]?.rawBody).toContain('Covers every manual.');
  });
});

describe('compaction', () => {
  it('a context manager compacts when the request would exceed the window; the request carries placeholders', async () => {
    const big = (n: number) => `RESULT-${n} ${'x'.repeat(2000)}`;
    let served = 0;
    const { registry } = toolbox({ search_docs: () => big(++served) });
    const reservation = toolsCost(registry.schemas(), counter) + 100;
    // Room for the prompt and about two big results, not three.
    const contextWindow = reservation + 1300;
    const call = (id: string): ScriptedReply => ({
      toolCalls: [{ id, name: 'search_docs', arguments: { query: id } }],
      usage: false,
    });
    server.current.enqueue(call('s1'), call('s2'), call('s3'), call('s4'), { text: 'Summary.', usage: false });
    const run = new BareLoop({
      client: openAI(server.current),
      registry,
      config: { contextWindow, maxOutputTokens: 100 },
      managers: [toolResultCompactor({ keepRecent: 1 })],
    }).run('Search everything.');
    const events = await collect(run);

    const compactions = ofType(events, 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    const first = compactions[0]!;
    expect(first.manager).toBe('tool-result-compactor');
    expect(first.beforeTokens + reservation).toBeGreaterThan(contextWindow);
    expect(first.afterTokens).toBeLessThan(first.beforeTokens);
    const request = onTurn(events, 'request', first.turn);
    expect(request.fullSurfaceReservationTokens).toBe(reservation);
    expect(request.estimatedInputTokens).toBe(first.afterTokens);
    expect(
      request.estimatedInputTokens - request.advertisedTokens + request.fullSurfaceReservationTokens,
    ).toBeLessThanOrEqual(contextWindow);
    expect(ofType(events, 'warning').filter((w) => w.code === 'context_overflow')).toEqual([]);

    // The request after compaction carries the placeholder instead of the oldest result.
    const wire = server.current.requests[first.turn - 1]?.rawBody ?? '';
    expect(wire).toContain('[tool result elided to save context');
    expect(wire).not.toContain('RESULT-1 ');
    expect(wire).toContain(`RESULT-${first.turn - 1} `); // the most recent result is kept
    // Before compaction was needed, requests carried results verbatim.
    expect(server.current.requests[first.turn - 2]?.rawBody).toContain('RESULT-1 ');
    expect((await run.result()).stopReason).toBe('stop');
  });

  it('no manager: an overflowing estimate is reported as a warning and the request still goes out', async () => {
    const { registry } = toolbox();
    const contextWindow = toolsCost(registry.schemas(), counter) + 4096 + 5;
    server.current.enqueue({ text: 'ok', usage: false });
    const events = await collect(
      new BareLoop({ client: openAI(server.current), registry, config: { contextWindow } }).run(PROMPT),
    );
    expect(ofType(events, 'compaction')).toEqual([]);
    expect(ofType(events, 'warning').map((w) => w.code)).toEqual(['context_overflow']);
    expect(server.current.requests).toHaveLength(1);
  });
});

describe('the compaction trigger counts what the wire carries (issue 13)', () => {
  const sizes = (events: Awaited<ReturnType<typeof collect>>) =>
    ofType(events, 'request').map((r) => ({
      turn: r.turn,
      input: r.estimatedInputTokens,
      advertised: r.advertisedTokens,
    }));

  it('one advertised tool in an 8,000-token window: 13,000 tokens of unsent schemas neither compact nor warn', async () => {
    const { registry } = toolbox();
    for (let i = 0; i < 16; i++) registry.register(wideTool(`unsent_${i}`, 3200), () => 'unsent');
    const all = registry.schemas();
    const unsent = toolsCost(all, counter) - toolsCost(named(all, 'get_weather'), counter);
    expect(unsent).toBeGreaterThan(13_000);
    server.current.enqueue(weatherCall(false), { text: 'Sunny.', usage: false });
    const run = new BareLoop({
      client: openAI(server.current),
      registry,
      config: { contextWindow: 8000 },
      managers: [toolResultCompactor({ keepRecent: 0 })],
    })
      .withToolSelector(new StaticSelector(['get_weather']))
      .run(PROMPT);
    const events = await collect(run);

    expect(ofType(events, 'compaction')).toEqual([]);
    expect(ofType(events, 'warning')).toEqual([]);
    expect((await run.result()).stopReason).toBe('stop');
    const weatherCost = toolsCost(named(all, 'get_weather'), counter);
    for (const turn of [1, 2]) {
      const request = onTurn(events, 'request', turn);
      expect(request).toMatchObject({
        advertisedTokens: weatherCost,
        outputReservationTokens: 4096,
        fullSurfaceReservationTokens: toolsCost(all, counter) + 4096,
        contextWindow: 8000,
      });
      // What the wire carries fits; the full surface would not, and that alone triggers nothing.
      expect(request.estimatedInputTokens + request.outputReservationTokens).toBeLessThanOrEqual(8000);
      expect(
        request.estimatedInputTokens - request.advertisedTokens + request.fullSurfaceReservationTokens,
      ).toBeGreaterThan(8000);
    }
    expect(onTurn(events, 'estimate', 1)).toMatchObject({
      advertisedTokens: weatherCost,
      outputReservationTokens: 4096,
      fullSurfaceReservationTokens: toolsCost(all, counter) + 4096,
      contextWindow: 8000,
    });
    expect(sizes(events)).toHaveLength(2);
  });

  it('no selector: the tools are counted once (messages + tools + output fit, so nothing compacts)', async () => {
    const { registry } = wideToolbox();
    const tools = toolsCost(registry.schemas(), counter);
    const opening = messageCost({ role: 'user', content: PROMPT }, counter);
    // Room for the prompt, the tools once, the reply and a little conversation, but not the tools twice.
    const contextWindow = opening + tools + 4096 + Math.floor(tools / 2);
    server.current.enqueue(weatherCall(false), { text: 'Sunny.', usage: false });
    const run = new BareLoop({
      client: openAI(server.current),
      registry,
      config: { contextWindow },
      managers: [toolResultCompactor({ keepRecent: 0 })],
    }).run(PROMPT);
    const events = await collect(run);

    expect(ofType(events, 'compaction')).toEqual([]);
    expect(ofType(events, 'warning')).toEqual([]);
    const first = onTurn(events, 'request', 1);
    expect(first).toMatchObject({
      estimatedInputTokens: opening + tools,
      advertisedTokens: tools,
      fullSurfaceReservationTokens: tools + 4096,
    });
    expect(server.current.requests).toHaveLength(2);
    expect(server.current.requests[1]?.rawBody).toContain('Sunny in Oslo');
  });

  it('compacts when the wire would overflow, and its target leaves room for the full surface', async () => {
    const big = (n: number) => `RESULT-${n} ${'x'.repeat(2000)}`;
    let served = 0;
    const { registry } = toolbox({ search_docs: () => big(++served) });
    for (let i = 0; i < 3; i++) registry.register(wideTool(`wide_${i}`, 1200), () => 'wide');
    const all = registry.schemas();
    const full = toolsCost(all, counter);
    const advertised = toolsCost(named(all, 'search_docs'), counter);
    const maxOutputTokens = 100;
    // Room for the prompt, the one advertised tool and three big results (about 500 tokens each);
    // beside the full surface (about 1,100 tokens) there is room for one only.
    const contextWindow = advertised + maxOutputTokens + 1800;
    expect(full - advertised).toBeGreaterThan(900);
    const call = (id: string): ScriptedReply => ({
      toolCalls: [{ id, name: 'search_docs', arguments: { query: id } }],
      usage: false,
    });
    server.current.enqueue(call('s1'), call('s2'), call('s3'), call('s4'), call('s5'), {
      text: 'Summary.',
      usage: false,
    });
    const run = new BareLoop({
      client: openAI(server.current),
      registry,
      config: { contextWindow, maxOutputTokens },
      managers: [toolResultCompactor({ keepRecent: 1 })],
    })
      .withToolSelector(new StaticSelector(['search_docs']))
      .run('Search everything.');
    const events = await collect(run);
    expect((await run.result()).stopReason).toBe('stop');

    const compactions = ofType(events, 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    const first = compactions[0]!;
    // The trigger: messages + advertised tools + output over the window, and not before.
    expect(first.beforeTokens + maxOutputTokens).toBeGreaterThan(contextWindow);
    const earlier = ofType(events, 'request').filter((r) => r.turn < first.turn);
    expect(earlier.length).toBeGreaterThan(0);
    for (const request of earlier)
      expect(request.estimatedInputTokens + request.outputReservationTokens).toBeLessThanOrEqual(contextWindow);
    // Those earlier turns went out although their messages plus the full surface would not have fit.
    expect(
      earlier.some((r) => r.estimatedInputTokens - r.advertisedTokens + r.fullSurfaceReservationTokens > contextWindow),
    ).toBe(true);
    // The target: after compaction the messages, the full surface and the reply all fit.
    const request = onTurn(events, 'request', first.turn);
    expect(request).toMatchObject({
      estimatedInputTokens: first.afterTokens,
      advertisedTokens: advertised,
      fullSurfaceReservationTokens: full + maxOutputTokens,
    });
    expect(
      request.estimatedInputTokens - request.advertisedTokens + request.fullSurfaceReservationTokens,
    ).toBeLessThanOrEqual(contextWindow);
    expect(ofType(events, 'warning')).toEqual([]);
    expect(server.current.requests[first.turn - 1]?.rawBody).toContain('[tool result elided to save context');
  });
});

describe('contextFit', () => {
  const figures = { contextWindow: 10_000, outputReservation: 1000, fullSurfaceReservation: 6000 };
  const estimate = (messages: number, tools: number) => ({
    tokens: messages + tools,
    toolTokens: tools,
    anchored: false,
  });

  it.each([
    // messages, advertised tools → overflows (trigger), fits the full surface (target), limit
    [3000, 500, false, true, 4500],
    [5000, 500, false, false, 4500], // the wire fits although the full surface would not: no compaction
    [8600, 500, true, false, 4500],
    [8500, 500, false, false, 4500], // exactly the window: fits
  ])('messages %i + tools %i', (messages, tools, overflows, fitsFullSurface, compactionLimit) => {
    expect(contextFit(estimate(messages, tools), figures)).toEqual({ overflows, fitsFullSurface, compactionLimit });
  });

  it('when the full surface and the reply alone exceed the window, the target is below zero', () => {
    const fit = contextFit(estimate(100, 50), {
      contextWindow: 8000,
      outputReservation: 4096,
      fullSurfaceReservation: 17_500,
    });
    expect(fit).toEqual({ overflows: false, fitsFullSurface: false, compactionLimit: 8000 - 17_500 + 50 });
  });
});
