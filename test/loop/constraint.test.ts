import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import {
  body,
  collect,
  ofType,
  PROVIDERS,
  toolbox,
  useScriptedServer,
  wireMessages,
  wireToolNames,
} from './helpers.js';

const server = useScriptedServer();

describe.each(PROVIDERS)('ToolConstraint on the wire ($provider)', ({ provider, make }) => {
  const expected: Record<ToolConstraint, unknown> =
    provider === 'openai'
      ? { auto: undefined, strict: undefined, required: 'required', none: 'none' }
      : { auto: undefined, strict: undefined, required: { type: 'any' }, none: { type: 'none' } };

  it.each(Object.values(ToolConstraint))('%s', async (constraint) => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'ok' });
    const events = await collect(
      new BareLoop({ client: make(server.current), registry, config: { constraint } }).run('hi'),
    );
    const request = server.current.requests[0];
    expect(request?.rejected).toBeUndefined();
    expect(body(request).tool_choice).toEqual(expected[constraint]);
    expect(wireToolNames(request)).toHaveLength(4);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });
});

describe.each(PROVIDERS)('Strict dispatch ($provider)', ({ make }) => {
  /** One turn, three parallel calls: advertised, registered-but-unadvertised, unknown. */
  function parallelCalls(): void {
    server.current.enqueue(
      {
        toolCalls: [
          { id: 'c_ok', name: 'get_weather', arguments: { city: 'Oslo' } },
          { id: 'c_hidden', name: 'send_email', arguments: { to: 'a@b.c', body: 'hi' } },
          { id: 'c_unknown', name: 'launch_rockets', arguments: {} },
        ],
      },
      { text: 'Done.' },
    );
  }

  it('refuses a registered but unadvertised call, reports an unknown name, dispatches the advertised one', async () => {
    const { registry, calls } = toolbox();
    parallelCalls();
    const events = await collect(
      new BareLoop({ client: make(server.current), registry, config: { constraint: ToolConstraint.Strict } })
        .withToolSelector(new StaticSelector(['get_weather']))
        .run('Weather in Oslo?'),
    );
    expect(calls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    expect(ofType(events, 'tool_call').map((e) => [e.call.name, e.advertised])).toEqual([
      ['get_weather', true],
      ['send_email', false],
      ['launch_rockets', false],
    ]);
    const results = Object.fromEntries(ofType(events, 'tool_result').map((e) => [e.result.toolCallId, e.result]));
    expect(results.c_ok).toMatchObject({ isError: false, content: 'Sunny in Oslo' });
    expect(results.c_hidden).toMatchObject({ isError: true, name: 'send_email' });
    expect(results.c_hidden?.content).toMatch(/not offered this turn/);
    expect(results.c_unknown).toMatchObject({ isError: true });
    expect(results.c_unknown?.content).toMatch(/unknown tool "launch_rockets"/);
    // Strict needs no tool choice; every call is answered on the next request.
    expect(body(server.current.requests[0])).not.toHaveProperty('tool_choice');
    expect(server.current.requests[1]?.rejected).toBeUndefined();
    expect(JSON.stringify(wireMessages(server.current.requests[1]))).toContain('not offered this turn');
    expect(ofType(events, 'done')[0]?.stopReason).toBe('stop');
  });

  it('composes with any selector without extra configuration (KeywordSelector)', async () => {
    const { registry, calls } = toolbox();
    parallelCalls();
    const events = await collect(
      new BareLoop({ client: make(server.current), registry, config: { constraint: ToolConstraint.Strict } })
        .withToolSelector(new KeywordSelector())
        .run('What is the weather in Oslo?'),
    );
    expect(ofType(events, 'selection')[0]?.advertised).toEqual(['get_weather']);
    expect(calls.map((c) => c.name)).toEqual(['get_weather']);
    const hidden = ofType(events, 'tool_result').find((e) => e.result.toolCallId === 'c_hidden');
    expect(hidden?.result.content).toMatch(/not offered this turn/);
  });

  it('without Strict, an unadvertised registered call dispatches', async () => {
    const { registry, calls } = toolbox();
    parallelCalls();
    const events = await collect(
      new BareLoop({ client: make(server.current), registry })
        .withToolSelector(new StaticSelector(['get_weather']))
        .run('Weather in Oslo?'),
    );
    expect(calls.map((c) => c.name)).toEqual(['get_weather', 'send_email']);
    const results = Object.fromEntries(ofType(events, 'tool_result').map((e) => [e.result.toolCallId, e.result]));
    expect(results.c_hidden).toMatchObject({ isError: false, content: 'sent to a@b.c' });
    expect(results.c_unknown?.content).toMatch(/unknown tool/);
  });
});
