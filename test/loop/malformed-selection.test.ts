/**
 * A custom selector is user code: whatever it returns that is not a list of registry members
 * (or a SelectorOutput holding one) serves the full surface with exactly one warning naming
 * what was wrong, and the run goes on. Through the real loop and the scripted model server.
 */
import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import type { AsyncToolSelector, ToolSelector } from '../../src/select/selector.js';
import { body, collect, ofType, onTurn, openAI, toolbox, useScriptedServer, wireToolNames } from './helpers.js';

const server = useScriptedServer();

async function runWith(install: (loop: BareLoop) => BareLoop) {
  const { registry } = toolbox();
  server.current.enqueue({ text: 'ok' });
  const loop = install(new BareLoop({ client: openAI(server.current), registry }));
  const events = await collect(loop.run('weather in Oslo'));
  return { events, all: registry.schemas().map((tool) => tool.name), request: server.current.requests[0] };
}

const MALFORMED: readonly [string, unknown, RegExp][] = [
  ['null', null, /got null/],
  ['undefined', undefined, /got undefined/],
  ['a string', 'get_weather', /got a string/],
  ['an empty object', {}, /"tools" is undefined/],
  ['tools: null', { tools: null }, /"tools" is null/],
  ['a list holding null and 42', [null, 42], /entry 0 is null/],
  [
    'only unregistered tools',
    [{ name: 'launch_rocket', description: 'x', parameters: {} }],
    /none of the 1 returned tool\(s\) is registered: launch_rocket/,
  ],
  ['only unknown names', ['launch_rocket', 'sell_house'], /launch_rocket, sell_house/],
];

describe('a malformed selection falls open with one warning', () => {
  for (const [label, value, problem] of MALFORMED) {
    for (const kind of ['sync', 'async'] as const) {
      it(`${kind} selector returning ${label}`, async () => {
        const { events, all, request } = await runWith((loop) =>
          kind === 'sync'
            ? loop.withToolSelector({ name: 'sloppy', select: () => value } as unknown as ToolSelector)
            : loop.withAsyncToolSelector({ name: 'sloppy', select: async () => value } as unknown as AsyncToolSelector),
        );
        const selection = onTurn(events, 'selection', 1);
        expect(selection.advertised).toEqual(all);
        expect(selection.fellOpen).toMatch(problem);
        expect(wireToolNames(request)).toEqual(all);
        const warnings = ofType(events, 'warning');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatchObject({ code: 'malformed_selection' });
        expect(warnings[0]?.message).toMatch(/sloppy/);
        expect(warnings[0]?.message).toMatch(problem);
        expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
      });
    }
  }

  it('a throwing selector gives one selector_failed warning, not two', async () => {
    const { events } = await runWith((loop) =>
      loop.withToolSelector({
        name: 'broken',
        select: () => {
          throw new Error('index not loaded');
        },
      }),
    );
    expect(ofType(events, 'warning').map((w) => w.code)).toEqual(['selector_failed']);
  });

  it('a Promise from a selector installed as sync is awaited, with a warning pointing at withAsyncToolSelector', async () => {
    const { events, request } = await runWith((loop) =>
      loop.withToolSelector({
        name: 'secretly-async',
        select: (async (_ctx: unknown, all: readonly { name: string }[]) =>
          all.filter((tool) => tool.name === 'get_weather')) as never,
      }),
    );
    expect(onTurn(events, 'selection', 1)).toMatchObject({ advertised: ['get_weather'], fellOpen: null });
    expect(wireToolNames(request)).toEqual(['get_weather']);
    const warnings = ofType(events, 'warning');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/installed as sync but returned a Promise/);
    expect(warnings[0]?.message).toMatch(/withAsyncToolSelector/);
  });

  it('a list of registered names is accepted as those tools', async () => {
    const { events, request } = await runWith((loop) =>
      loop.withToolSelector({ name: 'by-name', select: () => ['search_docs', 'get_weather'] as never }),
    );
    expect(onTurn(events, 'selection', 1)).toMatchObject({
      advertised: ['get_weather', 'search_docs'],
      fellOpen: null,
    });
    expect(wireToolNames(request)).toEqual(['get_weather', 'search_docs']);
    expect(ofType(events, 'warning')).toEqual([]);
  });

  it('an intentional empty list stays an empty, tool-less request', async () => {
    const { events, request } = await runWith((loop) => loop.withToolSelector({ name: 'none', select: () => [] }));
    expect(onTurn(events, 'selection', 1)).toMatchObject({ advertised: [], fellOpen: null });
    expect(body(request)).not.toHaveProperty('tools');
    expect(ofType(events, 'warning')).toEqual([]);
  });

  it('a SelectorOutput from select() is honoured with its reasons', async () => {
    const { events } = await runWith((loop) =>
      loop.withToolSelector({
        name: 'detailed',
        select: (_ctx, all) => ({
          tools: all.filter((tool) => tool.name === 'get_weather'),
          reasons: { get_weather: { score: 0.9 } },
        }),
      }),
    );
    expect(onTurn(events, 'selection', 1)).toMatchObject({
      advertised: ['get_weather'],
      reasons: { get_weather: { score: 0.9 } },
    });
  });
});
