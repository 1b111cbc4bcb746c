import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import type { Message } from '../../src/message.js';
import { messageText } from '../../src/message.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { toolsCost } from '../../src/registry/tool-cost.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import { approxTokenCounter } from '../../src/tokens/token-counter.js';
import {
  anthropic,
  body,
  collect,
  named,
  ofType,
  onTurn,
  openAI,
  PROVIDERS,
  recordingAsyncSelector,
  recordingSelector,
  toolbox,
  useScriptedServer,
  wireToolNames,
} from './helpers.js';

const server = useScriptedServer();

const PROMPT = 'Find the weather in Oslo, then search the docs for umbrellas.';

/** Three turns: two tool turns, then an answer. */
function threeTurns(): void {
  server.current.enqueue(
    { toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
    { toolCalls: [{ id: 'c2', name: 'search_docs', arguments: { query: 'umbrella' } }] },
    { text: 'Rain gear: see page 3.' },
  );
}

describe('selection threading', () => {
  it('consults the selector exactly once per turn and threads that one selection into the wire and the estimate', async () => {
    const { registry } = toolbox();
    // A different surface each turn, so each request shows which selection it carried.
    const plan: Record<number, string[]> = { 1: ['get_weather'], 2: ['get_weather', 'search_docs'], 3: [] };
    const selector = recordingSelector((ctx, all) => named(all, ...(plan[ctx.turn] ?? [])));
    threeTurns();
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector(selector);
    const events = await collect(loop.run(PROMPT));

    expect(selector.contexts.map((ctx) => ctx.turn)).toEqual([1, 2, 3]);
    const requests = server.current.requests;
    expect(requests).toHaveLength(3);
    for (const turn of [1, 2, 3]) {
      const advertised = plan[turn] as string[];
      const selection = onTurn(events, 'selection', turn);
      expect(selection.advertised).toEqual(advertised);
      expect(wireToolNames(requests[turn - 1])).toEqual(advertised.length > 0 ? advertised : undefined);
      expect(selection.advertisedTokens).toBe(toolsCost(named(registry.schemas(), ...advertised), approxTokenCounter));
      expect(onTurn(events, 'request', turn).tools).toBe(advertised.length);
    }
    // The wire carries the registry's own schemas, verbatim.
    expect(body(requests[1]).tools[1].function).toEqual({
      name: 'search_docs',
      description: registry.get('search_docs')?.description,
      parameters: registry.get('search_docs')?.parameters,
    });
  });

  it("the request estimate moves by exactly the narrowed schemas' cost", async () => {
    const estimates: number[] = [];
    const tokens: number[] = [];
    for (const selector of [new StaticSelector(), new StaticSelector(['get_weather'])]) {
      const { registry } = toolbox();
      server.current.enqueue({ text: 'ok' });
      const events = await collect(
        new BareLoop({ client: openAI(server.current), registry }).withToolSelector(selector).run(PROMPT),
      );
      estimates.push(onTurn(events, 'request', 1).estimatedInputTokens);
      tokens.push(onTurn(events, 'selection', 1).advertisedTokens);
    }
    const [full, narrow] = estimates as [number, number];
    expect(narrow).toBeLessThan(full);
    expect(full - narrow).toBe((tokens[0] as number) - (tokens[1] as number));
  });

  it('the selection query is the opening prompt on every turn; conversation is what the request carries', async () => {
    const { registry } = toolbox();
    const selector = recordingSelector((_ctx, all) => all);
    threeTurns();
    const loop = new BareLoop({
      client: openAI(server.current),
      registry,
      config: { system: 'Be brief.' },
    }).withToolSelector(selector);
    await collect(loop.run(PROMPT));

    const third = selector.contexts[2];
    expect(third?.turn).toBe(3);
    expect(third?.latestUserMessage).toBe(PROMPT);
    expect(selector.contexts.map((ctx) => ctx.latestUserMessage)).toEqual([PROMPT, PROMPT, PROMPT]);
    // Turn 3's request carries the tool results; the query still is not their text.
    const conversation = third?.conversation ?? [];
    expect(conversation.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(messageText(conversation[5] as Message)).toBe('3 pages match umbrella');
    const wire = body(server.current.requests[2]).messages as { role: string; content: unknown }[];
    expect(wire.map((m) => m.role)).toEqual(conversation.map((m) => m.role));
    expect(wire[0]?.content).toBe('Be brief.');
  });

  it.each(PROVIDERS)(
    'transients ride the request view and the selection, never the transcript ($provider)',
    async ({ make }) => {
      const { registry, calls } = toolbox();
      const memory: Message = {
        role: 'user',
        content: 'Memory: the customer asked about order A-17; use lookup_order.',
      };
      // Advertise the tools a message of the request names: only the memory names lookup_order.
      const selector = recordingAsyncSelector(async (ctx, all) => {
        const text = ctx.conversation.map(messageText).join('\n');
        return all.filter((tool) => text.includes(tool.name));
      });
      server.current.enqueue(
        { toolCalls: [{ name: 'lookup_order', arguments: { number: 'A-17' } }] },
        { text: 'Order A-17 shipped.' },
      );
      const run = new BareLoop({ client: make(server.current), registry })
        .withAsyncToolSelector(selector)
        .run('Where is my order?', { transients: [memory] });
      const events = await collect(run);

      for (const ctx of selector.contexts) {
        expect(ctx.conversation.map(messageText)).toContain(messageText(memory));
      }
      expect(selector.contexts).toHaveLength(2);
      expect(onTurn(events, 'selection', 1).advertised).toEqual(['lookup_order']);
      expect(calls).toEqual([{ name: 'lookup_order', args: { number: 'A-17' } }]);
      for (const request of server.current.requests) {
        expect(request.rawBody).toContain('Memory: the customer asked about order A-17');
        expect(wireToolNames(request)).toEqual(['lookup_order']);
      }
      const result = await run.result();
      expect(result.text).toBe('Order A-17 shipped.');
      expect(result.messages.map(messageText)).not.toContain(messageText(memory));
      expect(result.messages[0]).toEqual({ role: 'user', content: 'Where is my order?' });
    },
  );
});

describe('no selector: byte-identical to a loop without selection', () => {
  it.each(PROVIDERS)(
    'non-streaming ($provider): every request equals buildBody over the whole registry',
    async ({ make }) => {
      for (const selector of [undefined, new StaticSelector()]) {
        const { registry } = toolbox();
        const client = make(server.current);
        const loop = new BareLoop({ client, registry, config: { stream: false, system: 'You help.' } });
        if (selector) loop.withToolSelector(selector);
        server.current.enqueue(
          { toolCalls: [{ id: 'c1', name: 'get_weather', arguments: { city: 'Oslo' } }] },
          { text: 'Sunny.' },
        );
        const run = loop.run('Weather in Oslo?');
        await collect(run);
        const { messages } = await run.result();
        const system: Message = { role: 'system', content: 'You help.' };
        const requests = server.current.requests.slice(-2);
        expect(requests[0]?.stream).toBe(false);
        expect(requests[0]?.rawBody).toBe(
          client.buildBody({ messages: [system, ...messages.slice(0, 1)], tools: registry.schemas() }),
        );
        expect(requests[1]?.rawBody).toBe(
          client.buildBody({ messages: [system, ...messages.slice(0, 3)], tools: registry.schemas() }),
        );
      }
    },
  );

  it.each(PROVIDERS)(
    'streaming ($provider): the request equals buildBody with stream set, over the whole registry',
    async ({ make }) => {
      const { registry } = toolbox();
      const client = make(server.current);
      server.current.enqueue({ text: 'Hi.' });
      await collect(new BareLoop({ client, registry }).run('Hello'));
      expect(server.current.requests[0]?.stream).toBe(true);
      expect(server.current.requests[0]?.rawBody).toBe(
        client.buildBody({ messages: [{ role: 'user', content: 'Hello' }], tools: registry.schemas(), stream: true }),
      );
    },
  );
});

describe('an empty selection', () => {
  const constraints = [ToolConstraint.Auto, ToolConstraint.Required, ToolConstraint.None, ToolConstraint.Strict];
  it.each(PROVIDERS)(
    'omits tools and any tool choice, under every constraint ($provider)',
    async ({ make, provider }) => {
      for (const constraint of constraints) {
        const { registry } = toolbox();
        server.current.enqueue({ text: 'No tools needed.' });
        const events = await collect(
          new BareLoop({ client: make(server.current), registry, config: { constraint } })
            .withToolSelector(new StaticSelector([]))
            .run('Say hi'),
        );
        const request = server.current.requests[server.current.requests.length - 1];
        expect(request?.rejected, `${provider} ${constraint}`).toBeUndefined();
        expect(body(request)).not.toHaveProperty('tools');
        expect(body(request)).not.toHaveProperty('tool_choice');
        expect(onTurn(events, 'selection', 1)).toMatchObject({ advertised: [], advertisedTokens: 0, fellOpen: null });
        expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
      }
    },
  );
});

describe('selector faults through the loop', () => {
  it('a sync selector that throws: full surface plus a warning', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'ok' });
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector({
      name: 'broken',
      select: () => {
        throw new Error('index not loaded');
      },
    });
    const events = await collect(loop.run('weather'));
    const all = registry.schemas().map((t) => t.name);
    expect(onTurn(events, 'selection', 1).advertised).toEqual(all);
    expect(onTurn(events, 'selection', 1).fellOpen).toMatch(/index not loaded/);
    const warnings = ofType(events, 'warning');
    expect(
      warnings.some(
        (w) => w.code === 'selector_failed' && /broken/.test(w.message) && /index not loaded/.test(w.message),
      ),
    ).toBe(true);
    expect(wireToolNames(server.current.requests[0])).toEqual(all);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('an async selector that rejects: full surface plus a warning, on every turn it rejects', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] }, { text: 'ok' });
    const selector = recordingAsyncSelector(async () => {
      throw new Error('embedder offline');
    }, 'remote');
    const events = await collect(
      new BareLoop({ client: anthropic(server.current), registry }).withAsyncToolSelector(selector).run('weather'),
    );
    const all = registry.schemas().map((t) => t.name);
    for (const turn of [1, 2]) {
      expect(onTurn(events, 'selection', turn).advertised).toEqual(all);
      expect(wireToolNames(server.current.requests[turn - 1])).toEqual(all);
    }
    expect(
      ofType(events, 'warning').filter((w) => w.code === 'selector_failed' && /embedder offline/.test(w.message)),
    ).toHaveLength(2);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('a fabricated schema is dropped with a warning and never reaches the wire', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'ok' });
    const invented: ToolSchema = { name: 'delete_everything', description: 'Wipe it.', parameters: { type: 'object' } };
    // Reuses a registered name with a different description: still not the registry's schema.
    const forged: ToolSchema = { ...(registry.get('send_email') as ToolSchema), description: 'Send money.' };
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector({
      name: 'fabricating',
      select: (_ctx, all) => [...named(all, 'get_weather'), invented, forged],
    });
    const events = await collect(loop.run('weather'));
    expect(onTurn(events, 'selection', 1).advertised).toEqual(['get_weather']);
    const warning = ofType(events, 'warning').find((w) => w.code === 'selection');
    expect(warning?.message).toMatch(/delete_everything/);
    expect(warning?.message).toMatch(/send_email/);
    const request = server.current.requests[0];
    expect(wireToolNames(request)).toEqual(['get_weather']);
    expect(request?.rawBody).not.toContain('delete_everything');
    expect(request?.rawBody).not.toContain('Send money.');
  });
});
