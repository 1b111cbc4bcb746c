import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import { FIND_TOOLS } from '../../src/loop/tool-search.js';
import { toolsCost } from '../../src/registry/tool-cost.js';
import type { AsyncToolSelector } from '../../src/select/selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { approxTokenCounter } from '../../src/tokens/token-counter.js';
import {
  collect,
  ofType,
  onTurn,
  PROVIDERS,
  toolbox,
  useScriptedServer,
  wireMessages,
  wireToolNames,
} from './helpers.js';

const server = useScriptedServer();
const STRICT = { constraint: ToolConstraint.Strict };

describe.each(PROVIDERS)('find_tools ($provider)', ({ provider, make }) => {
  it('miss → find_tools → the next request carries the found tool → its call dispatches under Strict', async () => {
    const { registry, calls } = toolbox();
    // The selector misses: it offers only the weather tool for an email task.
    const loop = new BareLoop({ client: make(server.current), registry, config: STRICT })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ k: 1 });
    server.current.enqueue(
      { toolCalls: [{ id: 's1', name: FIND_TOOLS, arguments: { query: 'send an email message' } }] },
      { toolCalls: [{ id: 'e1', name: 'send_email', arguments: { to: 'kim@example.com', body: 'hi' } }] },
      { text: 'Sent.' },
    );
    const events = await collect(loop.run('Email Kim that the build is green.'));
    const [first, second, third] = server.current.requests;

    expect(wireToolNames(first)).toEqual(['get_weather', FIND_TOOLS]);
    expect(wireToolNames(second)).toEqual(['get_weather', 'send_email', FIND_TOOLS]);
    expect(wireToolNames(third)).toEqual(['get_weather', 'send_email', FIND_TOOLS]);
    expect(calls).toEqual([{ name: 'send_email', args: { to: 'kim@example.com', body: 'hi' } }]);

    const search = ofType(events, 'tool_result').find((event) => event.result.name === FIND_TOOLS);
    expect(search?.result.isError).toBe(false);
    expect(search?.result.content).toContain('send_email: Send an email message to a recipient.');
    const sent = ofType(events, 'tool_result').find((event) => event.result.name === 'send_email');
    expect(sent?.result).toMatchObject({ isError: false, content: 'sent to kim@example.com' });
    // The widened surface shows in the next turn's selection event and costs what it carries.
    const widened = onTurn(events, 'selection', 2);
    expect(widened.advertised).toEqual(['get_weather', 'send_email', FIND_TOOLS]);
    expect(widened.reasons.send_email).toEqual({ parts: { search: 1 } });
    const carried = registry.schemas().filter((tool) => ['get_weather', 'send_email'].includes(tool.name));
    const findTools = (body: any) =>
      (provider === 'openai' ? body.tools.map((t: any) => t.function) : body.tools).find(
        (t: any) => t.name === FIND_TOOLS,
      );
    expect(findTools(second?.json)?.description).toMatch(/none of the tools/i);
    expect(widened.advertisedTokens).toBeGreaterThan(toolsCost(carried, approxTokenCounter));
    expect(onTurn(events, 'request', 2).tools).toBe(3);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
    expect(wireMessages(third).length).toBeGreaterThan(0);
  });

  it('without the search, the same call is refused under Strict (the test above can fail)', async () => {
    const { registry, calls } = toolbox();
    const loop = new BareLoop({ client: make(server.current), registry, config: STRICT }).withToolSelector(
      new StaticSelector(['get_weather']),
    );
    server.current.enqueue(
      { toolCalls: [{ id: 'e1', name: 'send_email', arguments: { to: 'kim', body: 'hi' } }] },
      { text: 'Could not.' },
    );
    const events = await collect(loop.run('Email Kim.'));
    expect(calls).toEqual([]);
    expect(ofType(events, 'tool_result')[0]?.result.isError).toBe(true);
    expect(wireToolNames(server.current.requests[0])).toEqual(['get_weather']);
  });
});

describe('find_tools failures and ranking', () => {
  it('a failing search is an error result and the run continues', async () => {
    const { registry } = toolbox();
    const broken: AsyncToolSelector = {
      name: 'broken-on-search',
      async select(ctx, all) {
        if (ctx.latestUserMessage === 'boom') throw new Error('index offline');
        return all.filter((tool) => tool.name === 'get_weather');
      },
    };
    const loop = new BareLoop({ client: make(), registry, config: STRICT })
      .withAsyncToolSelector(broken)
      .withToolSearch();
    server.current.enqueue(
      { toolCalls: [{ id: 's1', name: FIND_TOOLS, arguments: { query: 'boom' } }] },
      { toolCalls: [{ id: 's2', name: FIND_TOOLS, arguments: { query: '' } }] },
      { toolCalls: [{ id: 's3', name: FIND_TOOLS, arguments: '{not json' }] },
      { text: 'Gave up.' },
    );
    const events = await collect(loop.run('Do something odd.'));
    const results = ofType(events, 'tool_result').map((event) => event.result);
    expect(results.map((r) => r.isError)).toEqual([true, true, true]);
    expect(results[0]?.content).toContain('index offline');
    expect(results[1]?.content).toContain('non-empty "query"');
    expect(results[2]?.content).toContain('JSON');
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
    expect(wireToolNames(server.current.requests[3])).toEqual(['get_weather', FIND_TOOLS]);
  });

  it('ranks the whole registry with BM25 when the selector cannot rank an arbitrary query, skipping tools on offer', async () => {
    const { registry } = toolbox();
    const loop = new BareLoop({ client: make(), registry })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ k: 2 });
    server.current.enqueue(
      { toolCalls: [{ id: 's1', name: FIND_TOOLS, arguments: { query: 'weather and an order number' } }] },
      { text: 'ok' },
    );
    const events = await collect(loop.run('Where is my order?'));
    const result = ofType(events, 'tool_result')[0]?.result;
    expect(result?.content).toContain('lookup_order');
    expect(result?.content).not.toContain('get_weather');
    expect(wireToolNames(server.current.requests[1])).toEqual(['get_weather', 'lookup_order', FIND_TOOLS]);
  });

  it("ranks with the loop's own selector when it scores the query (not BM25)", async () => {
    const { registry } = toolbox();
    // Scores that disagree with BM25: for any search it ranks lookup_order over send_email.
    const scoring: AsyncToolSelector = {
      name: 'scoring',
      async select(ctx, all) {
        if (ctx.latestUserMessage === 'Plan my day.')
          return { tools: all.filter((tool) => tool.name === 'get_weather') };
        const pick = all.filter((tool) => ['send_email', 'lookup_order', 'get_weather'].includes(tool.name));
        return {
          tools: pick,
          reasons: { send_email: { score: 0.2 }, lookup_order: { score: 0.9 }, get_weather: { score: 0.95 } },
        };
      },
    };
    const loop = new BareLoop({ client: make(), registry }).withAsyncToolSelector(scoring).withToolSearch({ k: 1 });
    server.current.enqueue(
      { toolCalls: [{ id: 's1', name: FIND_TOOLS, arguments: { query: 'send an email' } }] },
      { text: 'ok' },
    );
    const events = await collect(loop.run('Plan my day.'));
    // get_weather scores best but is already on offer; of the rest, the selector's best wins.
    expect(ofType(events, 'tool_result')[0]?.result.content).toMatch(
      /^Found 1 tool, available from your next step:\n- lookup_order: Look up an order by its number\.$/,
    );
    expect(wireToolNames(server.current.requests[1])).toEqual(['get_weather', 'lookup_order', FIND_TOOLS]);
  });

  it('a registry tool named find_tools wins: no second tool of that name is advertised', async () => {
    const { registry } = toolbox();
    registry.register(
      { name: FIND_TOOLS, description: 'My own finder.', parameters: { type: 'object', properties: {} } },
      () => 'mine',
    );
    const loop = new BareLoop({ client: make(), registry }).withToolSearch();
    server.current.enqueue({ toolCalls: [{ id: 'f', name: FIND_TOOLS, arguments: {} }] }, { text: 'ok' });
    const events = await collect(loop.run('find'));
    expect(wireToolNames(server.current.requests[0])?.filter((name) => name === FIND_TOOLS)).toHaveLength(1);
    expect(ofType(events, 'tool_result')[0]?.result.content).toBe('mine');
  });

  it('rejects a bad k when configured', () => {
    const { registry } = toolbox();
    expect(() => new BareLoop({ client: make(), registry }).withToolSearch({ k: 0 })).toThrow(/positive integer/);
  });
});

function make() {
  return (PROVIDERS[0] as (typeof PROVIDERS)[number]).make(server.current);
}
