/**
 * The loop in deferred mode (`withToolSearch({ deferred: true })`) over the three protocols
 * against the scripted server: the selector's pick is loaded, the rest deferred (declared on
 * Anthropic and Responses, kept back on Chat Completions), a search reveals, the revealed tool
 * is callable from the next request on, the loaded set and the tools array hold, and the
 * accounting counts only loaded ∪ revealed.
 */
import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import { revealedIn } from '../../src/loop/deferred-search.js';
import type { LoopEvent } from '../../src/loop/events.js';
import { FIND_TOOLS } from '../../src/loop/tool-search.js';
import type { Message } from '../../src/message.js';
import type { ModelClient } from '../../src/model/client.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import { toolsCost } from '../../src/registry/tool-cost.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { approxTokenCounter } from '../../src/tokens/token-counter.js';
import type { ScriptedModelServer, ScriptedToolCall } from '../support/scripted-model-server.js';
import {
  anthropic,
  body,
  collect,
  ofType,
  onTurn,
  openAI,
  recordingSelector,
  responses,
  schemas,
  toolbox,
  useScriptedServer,
  wireMessages,
} from './helpers.js';

const server = useScriptedServer();
const STRICT = { constraint: ToolConstraint.Strict };

type Protocol = 'anthropic' | 'responses' | 'openai';
const PROTOCOLS: { protocol: Protocol; make: (s: ScriptedModelServer) => ModelClient; native: boolean }[] = [
  { protocol: 'anthropic', make: anthropic, native: true },
  { protocol: 'responses', make: responses, native: true },
  { protocol: 'openai', make: openAI, native: false },
];

/** The model calling the loop's search, as each protocol carries it. */
function searchCall(protocol: Protocol, id: string, query: unknown): ScriptedToolCall {
  return protocol === 'responses'
    ? { id, kind: 'tool_search', name: '', arguments: { query } }
    : { id, name: FIND_TOOLS, arguments: { query } };
}

/** The raw `tools` array of a recorded request, as sent. */
const toolsJson = (server: ScriptedModelServer, i: number) => JSON.stringify(body(server.requests[i]).tools);

describe.each(PROTOCOLS)('deferred mode ($protocol)', ({ protocol, make, native }) => {
  it('loads the pick, defers the rest, reveals what find_tools finds; the revealed tool is callable next request under Strict', async () => {
    const { registry, calls } = toolbox();
    const loop = new BareLoop({ client: make(server.current), registry, config: STRICT })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ deferred: true, k: 1 });
    server.current.enqueue(
      { toolCalls: [searchCall(protocol, 's1', 'send an email message')] },
      { toolCalls: [{ id: 'e1', name: 'send_email', arguments: { to: 'kim@example.com', body: 'hi' } }] },
      { text: 'Sent.' },
    );
    const events = await collect(loop.run('Email Kim that the build is green.'));
    const [first, second, third] = server.current.requests;

    expect(calls).toEqual([{ name: 'send_email', args: { to: 'kim@example.com', body: 'hi' } }]);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
    if (native) {
      // Every deferred tool is declared; the model sees only the loaded tool (and the search) until the reference.
      expect(first?.deferredTools).toEqual(['search_docs', 'send_email', 'lookup_order']);
      expect([...(first?.seenTools ?? [])].sort()).toEqual(
        protocol === 'anthropic' ? [FIND_TOOLS, 'get_weather'] : ['get_weather'],
      );
      expect(second?.seenTools).toContain('send_email');
      // The tools array is byte-identical from request to request: the prompt prefix holds.
      expect(toolsJson(server.current, 1)).toBe(toolsJson(server.current, 0));
      expect(toolsJson(server.current, 2)).toBe(toolsJson(server.current, 0));
    } else {
      expect(first?.json).toMatchObject({
        tools: [{ function: { name: 'get_weather' } }, { function: { name: FIND_TOOLS } }],
      });
      expect(body(second).tools.map((t: any) => t.function.name)).toEqual(['get_weather', 'send_email', FIND_TOOLS]);
    }
    if (protocol === 'anthropic') {
      expect(wireMessages(second)[2].content[0].content).toEqual([{ type: 'tool_reference', tool_name: 'send_email' }]);
    }
    if (protocol === 'responses') {
      expect(wireMessages(second).slice(1)).toEqual([
        {
          type: 'tool_search_call',
          call_id: 's1',
          execution: 'client',
          arguments: { query: 'send an email message' },
          status: 'completed',
        },
        expect.objectContaining({
          type: 'tool_search_output',
          call_id: 's1',
          tools: [expect.objectContaining({ name: 'send_email' })],
        }),
      ]);
    }
    expect(third).toBeDefined();

    // The events say what was loaded, revealed and deferred, and only loaded ∪ revealed is counted.
    expect(onTurn(events, 'request', 1).surface).toEqual({ loaded: ['get_weather'], revealed: [], deferred: 3 });
    expect(onTurn(events, 'request', 2).surface).toEqual({
      loaded: ['get_weather'],
      revealed: ['send_email'],
      deferred: 2,
    });
    expect(onTurn(events, 'selection', 2).advertised).toEqual(['get_weather', 'send_email', FIND_TOOLS]);
    const cost = (names: string[]) =>
      toolsCost(
        registry.schemas().filter((tool) => names.includes(tool.name)),
        approxTokenCounter,
      );
    const before = onTurn(events, 'request', 1).advertisedTokens;
    const after = onTurn(events, 'request', 2).advertisedTokens;
    expect(after - before).toBe(cost(['send_email']));
    expect(before).toBeLessThan(cost(['get_weather', 'search_docs', 'send_email', 'lookup_order']));
  });

  it('the loaded set holds for the conversation: one selection per run, for the opening prompt, whatever later turns ask', async () => {
    const { registry } = toolbox();
    const selector = recordingSelector((ctx, all) =>
      all
        .filter((tool) => (ctx.latestUserMessage ?? '').includes('weather') === (tool.name === 'get_weather'))
        .slice(0, 1),
    );
    const loop = new BareLoop({ client: make(server.current), registry })
      .withToolSelector(selector)
      .withToolSearch({ deferred: true });
    server.current.enqueue(
      { toolCalls: [{ id: 'w1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { text: 'Sunny.' },
      { text: 'Noted.' },
    );
    const first = await loop.run('What is the weather in Oslo?').result();
    const events = await collect(
      loop.run([...first.messages, { role: 'user', content: 'Now look up order 42 please.' }]),
    );
    expect(selector.contexts.map((ctx) => ctx.latestUserMessage)).toEqual([
      'What is the weather in Oslo?',
      'What is the weather in Oslo?',
    ]);
    expect(ofType(events, 'request').map((event) => event.surface?.loaded)).toEqual([['get_weather']]);
    if (native) for (const i of [1, 2]) expect(toolsJson(server.current, i)).toBe(toolsJson(server.current, 0));
  });

  it('a call to a deferred tool nothing revealed is not dispatched, even under Auto; the result says to search', async () => {
    const { registry, calls } = toolbox();
    const loop = new BareLoop({ client: make(server.current), registry })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ deferred: true });
    server.current.enqueue(
      { toolCalls: [{ id: 'x1', name: 'send_email', arguments: { to: 'kim', body: 'hi' }, hallucinated: true }] },
      { text: 'Sorry.' },
    );
    const events = await collect(loop.run('Email Kim.'));
    expect(calls).toEqual([]);
    expect(ofType(events, 'tool_call')[0]).toMatchObject({ advertised: false });
    expect(ofType(events, 'tool_result')[0]?.result).toMatchObject({
      isError: true,
      content: expect.stringMatching(/deferred and was not loaded: call find_tools/),
    });
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('a search with no query, or an empty one, is an error result; the run goes on', async () => {
    const { registry } = toolbox();
    const loop = new BareLoop({ client: make(server.current), registry })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ deferred: true });
    const blank =
      protocol === 'responses'
        ? { id: 's0', kind: 'tool_search' as const, name: '', arguments: {} }
        : { id: 's0', name: FIND_TOOLS, arguments: {} };
    server.current.enqueue({ toolCalls: [blank, searchCall(protocol, 's2', '   ')] }, { text: 'Never mind.' });
    const events = await collect(loop.run('Email Kim.'));
    const results = ofType(events, 'tool_result').map((event) => event.result);
    expect(results.map((result) => [result.isError, result.content])).toEqual([
      [true, 'find_tools needs a non-empty "query" string'],
      [true, 'find_tools needs a non-empty "query" string'],
    ]);
    expect(onTurn(events, 'request', 2).surface?.revealed).toEqual([]);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('a revealed tool removed from the registry mid-run: a warning, no reference to it on the wire, its call refused as unknown', async () => {
    const { registry, calls } = toolbox({
      lookup_order: () => {
        registry.unregister('send_email');
        return 'order 7 shipped';
      },
    });
    const loop = new BareLoop({ client: make(server.current), registry })
      .withToolSelector(new StaticSelector(['lookup_order']))
      .withToolSearch({ deferred: true, k: 1 });
    server.current.enqueue(
      { toolCalls: [searchCall(protocol, 's1', 'send an email message')] },
      { toolCalls: [{ id: 'o1', name: 'lookup_order', arguments: { number: '7' } }] },
      { toolCalls: [{ id: 'e1', name: 'send_email', arguments: { to: 'kim', body: 'hi' }, hallucinated: true }] },
      { text: 'Could not email.' },
    );
    const events = await collect(loop.run('Look up order 7 and email Kim.'));
    expect(calls.map((call) => call.name)).toEqual(['lookup_order']);
    expect(ofType(events, 'warning').filter((w) => w.code === 'revealed_tool_removed')).toHaveLength(1);
    const third = server.current.requests[2];
    expect(third?.rejected).toBeUndefined();
    expect(JSON.stringify(third?.json)).not.toMatch(/"(tool_name|name)":"send_email"/);
    expect(ofType(events, 'tool_result').at(-1)?.result).toMatchObject({
      name: 'send_email',
      isError: true,
      content: expect.stringMatching(/unknown tool/i),
    });
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });
});

describe('deferred mode, Anthropic specifics', () => {
  it('the hosted BM25 search: its find is callable in the same reply, its blocks go back verbatim, the loaded set and tools array hold', async () => {
    const { registry, calls } = toolbox();
    const loop = new BareLoop({ client: anthropic(server.current), registry, config: STRICT })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ deferred: true, hosted: 'bm25' });
    server.current.enqueue(
      {
        hostedSearch: { id: 'srvtoolu_1', query: 'order number' },
        toolCalls: [{ id: 'o1', name: 'lookup_order', arguments: { number: '42' } }],
      },
      { text: 'Order 42 shipped.' },
    );
    const run = loop.run('Where is order 42?');
    const events = await collect(run);
    const [first, second] = server.current.requests;
    expect(calls).toEqual([{ name: 'lookup_order', args: { number: '42' } }]);
    expect(body(first).tools.slice(0, 2)).toEqual([
      expect.objectContaining({ name: 'get_weather' }),
      { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
    ]);
    expect(first?.headers['anthropic-beta']).toBe('advanced-tool-use-2025-11-20');
    expect(wireMessages(second)[1].content.slice(0, 2)).toEqual([
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'tool_search_tool_bm25', input: { query: 'order number' } },
      {
        type: 'tool_search_tool_result',
        tool_use_id: 'srvtoolu_1',
        content: {
          type: 'tool_search_tool_search_result',
          tool_references: [{ type: 'tool_reference', tool_name: 'lookup_order' }],
        },
      },
    ]);
    expect(toolsJson(server.current, 1)).toBe(toolsJson(server.current, 0));
    expect(onTurn(events, 'request', 2).surface).toEqual({
      loaded: ['get_weather'],
      revealed: ['lookup_order'],
      deferred: 2,
    });
    // The run's messages hold the blocks, so a resumed run reads the same reveal back.
    expect(revealedIn((await run.result()).messages, registry.schemas())).toEqual(['lookup_order']);
  });

  it('a tool a hosted search revealed, removed mid-run: its reference is taken out of the kept blocks, so the vendor accepts the history', async () => {
    const { registry } = toolbox({
      lookup_order: () => {
        registry.unregister('send_email');
        return 'order 7 shipped';
      },
    });
    const loop = new BareLoop({ client: anthropic(server.current), registry })
      .withToolSelector(new StaticSelector(['lookup_order']))
      .withToolSearch({ deferred: true, hosted: 'bm25' });
    server.current.enqueue(
      {
        hostedSearch: { id: 'srvtoolu_9', query: 'send an email message' },
        toolCalls: [{ id: 'o1', name: 'lookup_order', arguments: { number: '7' } }],
      },
      { text: 'Done.' },
    );
    const events = await collect(loop.run('Look up order 7 and email Kim.'));
    const second = server.current.requests[1];
    expect(second?.rejected).toBeUndefined();
    expect(wireMessages(second)[1].content[1]).toEqual({
      type: 'tool_search_tool_result',
      tool_use_id: 'srvtoolu_9',
      content: { type: 'tool_search_tool_search_result', tool_references: [] },
    });
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('revealed_tool_removed');
  });

  it('deferred-only (the selector picks nothing) with a hosted search: one tool is loaded, with a warning, and the vendor accepts the request', async () => {
    const { registry } = toolbox();
    const loop = new BareLoop({ client: anthropic(server.current), registry })
      .withToolSelector(new StaticSelector([]))
      .withToolSearch({ deferred: true, hosted: 'regex' });
    server.current.enqueue({ text: 'ok' });
    const events = await collect(loop.run('Where is order 42?'));
    expect(server.current.requests[0]?.rejected).toBeUndefined();
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('deferred_only');
    expect(onTurn(events, 'request', 1).surface?.loaded).toEqual(['lookup_order']);
  });

  it('over 10,000 tools: at most 10,000 declared, the rest kept back with one warning, and the request is accepted', async () => {
    const registry = new ToolRegistry();
    registry.batch((r) => {
      for (let i = 0; i < 10_050; i++)
        r.register(
          { name: `tool_${i}`, description: `Tool number ${i}.`, parameters: { type: 'object', properties: {} } },
          () => 'ok',
        );
    });
    const loop = new BareLoop({ client: anthropic(server.current), registry })
      .withToolSelector(new StaticSelector(['tool_3']))
      .withToolSearch({ deferred: true });
    server.current.enqueue({ text: 'ok' });
    const events = await collect(loop.run('Use tool 3.'));
    const sent = body(server.current.requests[0]).tools as unknown[];
    expect(server.current.requests[0]?.rejected).toBeUndefined();
    expect(sent).toHaveLength(10_000);
    expect(ofType(events, 'warning').filter((w) => w.code === 'too_many_tools')).toHaveLength(1);
  });

  it('a resumed conversation referencing a tool that is not registered sends no reference to it, and warns', async () => {
    const { registry } = toolbox();
    const loop = new BareLoop({ client: anthropic(server.current), registry })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ deferred: true });
    const history: Message[] = [
      { role: 'user', content: 'Email Kim.' },
      { role: 'assistant', content: '', toolCalls: [{ id: 's1', name: FIND_TOOLS, arguments: '{"query":"email"}' }] },
      {
        role: 'tool',
        toolCallId: 's1',
        name: FIND_TOOLS,
        content: 'Found 2 tools',
        references: ['send_email', 'fax_machine'],
      },
    ];
    server.current.enqueue({ text: 'ok' });
    const events = await collect(loop.run(history));
    expect(server.current.requests[0]?.rejected).toBeUndefined();
    expect(wireMessages(server.current.requests[0])[2].content[0].content).toEqual([
      { type: 'tool_reference', tool_name: 'send_email' },
    ]);
    expect(ofType(events, 'warning').map((w) => w.message)).toContainEqual(
      expect.stringContaining('"fax_machine" is no longer registered'),
    );
    expect(onTurn(events, 'request', 1).surface?.revealed).toEqual(['send_email']);
  });
});

describe('deferred mode elsewhere', () => {
  it('hosted search asked of a client without it: a warning, and find_tools searches instead', async () => {
    const { registry } = toolbox();
    const loop = new BareLoop({ client: responses(server.current), registry })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ deferred: true, hosted: 'bm25' });
    server.current.enqueue({ text: 'ok' });
    const events: LoopEvent[] = await collect(loop.run('Email Kim.'));
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('tool_search');
    expect(body(server.current.requests[0]).tools[1]).toMatchObject({ type: 'tool_search', execution: 'client' });
  });

  it('a registry with its own find_tools turns the loop search off, with a warning', async () => {
    const { registry } = toolbox();
    registry.register({ ...schemas.search, name: FIND_TOOLS }, () => 'mine');
    const loop = new BareLoop({ client: anthropic(server.current), registry })
      .withToolSelector(new StaticSelector(['get_weather']))
      .withToolSearch({ deferred: true });
    server.current.enqueue({ text: 'ok' });
    const events = await collect(loop.run('hi'));
    expect(ofType(events, 'warning').map((w) => w.code)).toContain('tool_search');
    expect(body(server.current.requests[0]).tools.map((t: any) => t.name)).toEqual(['get_weather']);
  });
});
