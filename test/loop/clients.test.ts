import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolConstraint } from '../../src/loop/constraint.js';
import type { RetryInfo } from '../../src/model/retry.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { StaticSelector } from '../../src/select/static-selector.js';
import {
  collect,
  FAST_RETRY,
  ofType,
  PROVIDERS,
  shape,
  toolbox,
  useScriptedServer,
  wireMessages,
  wireToolNames,
} from './helpers.js';

const server = useScriptedServer();

describe.each(PROVIDERS)('a run over $provider', ({ provider, make }) => {
  it.each([true, false])('stream: %s — tool turn then answer', async (stream) => {
    const { registry, calls } = toolbox();
    server.current.enqueue(
      {
        text: 'Checking.',
        toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, chunks: 3 }],
        usage: { inputTokens: 50, outputTokens: 9 },
      },
      { text: 'Sunny in Oslo today.', usage: { inputTokens: 70, outputTokens: 5 } },
    );
    const run = new BareLoop({ client: make(server.current), registry, config: { stream } }).run('Weather in Oslo?');
    const events = await collect(run);
    const result = await run.result();

    expect(server.current.requests.map((r) => [r.provider, r.stream, r.rejected])).toEqual([
      [provider, stream, undefined],
      [provider, stream, undefined],
    ]);
    expect(calls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    expect(result).toMatchObject({
      text: 'Sunny in Oslo today.',
      stopReason: 'stop',
      turns: 2,
      usage: { inputTokens: 120, outputTokens: 14 },
    });
    expect(ofType(events, 'usage').map((e) => e.finishReason)).toEqual(['tool_calls', 'stop']);
    // The tool result reaches the model on the second request.
    expect(JSON.stringify(wireMessages(server.current.requests[1]))).toContain('Sunny in Oslo');
    const turn1Text = ofType(events, 'text').filter((e) => e.turn === 1);
    expect(turn1Text.map((e) => e.delta).join('')).toBe('Checking.');
    if (!stream) expect(turn1Text).toHaveLength(1);
  });

  it('a 429 with Retry-After mid-run is retried after the asked delay and the run succeeds', async () => {
    const retries: RetryInfo[] = [];
    const { registry } = toolbox();
    server.current.enqueue(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' } }] },
      { kind: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '0.03' } },
      { text: 'Sunny.' },
    );
    const client = make(server.current, { retry: { ...FAST_RETRY, onRetry: (info) => retries.push(info) } });
    const run = new BareLoop({ client, registry }).run('Weather?');
    const events = await collect(run);

    expect(retries.map((r) => r.delayMs)).toEqual([30]);
    const requests = server.current.requests;
    expect(requests).toHaveLength(3);
    expect(requests[2]?.rawBody).toBe(requests[1]?.rawBody); // the same request, resent
    expect(ofType(events, 'error')).toEqual([]);
    expect((await run.result()).stopReason).toBe('stop');
    expect((await run.result()).text).toBe('Sunny.');
  });

  it('a 500 that exhausts retries ends with an error event, then done (iteration does not throw)', async () => {
    const { registry } = toolbox();
    server.current.enqueue(
      { kind: 'error', status: 500, message: 'boom 1' },
      { kind: 'error', status: 500, message: 'boom 2' },
      { kind: 'error', status: 500, message: 'boom 3' },
    );
    const run = new BareLoop({ client: make(server.current), registry }).run('hi');
    const events = await collect(run);
    expect(server.current.requests).toHaveLength(FAST_RETRY.maxAttempts);
    expect(shape(events).slice(-2)).toEqual(['error', 'done']);
    const error = ofType(events, 'error')[0];
    expect(error).toMatchObject({ turn: 1, code: 'http_500' });
    expect(error?.message).toMatch(/boom 3/);
    expect(ofType(events, 'done')[0]?.stopReason).toBe('error');
    const result = await run.result();
    expect(result.stopReason).toBe('error');
    expect(result.error).toEqual({ code: error?.code, message: error?.message });
  });

  it('malformed SSE ends the run with an error event', async () => {
    const { registry } = toolbox();
    server.current.enqueue({ text: 'partial answer here', interrupt: { afterEvents: 2, action: 'malformed' } });
    const run = new BareLoop({ client: make(server.current), registry }).run('hi');
    const events = await collect(run);
    expect(shape(events).slice(-2)).toEqual(['error', 'done']);
    expect(ofType(events, 'error')[0]).toMatchObject({ code: 'ModelStreamError' });
    expect(ofType(events, 'error')[0]?.message).toMatch(/malformed/);
    expect((await run.result()).stopReason).toBe('error');
    expect(server.current.requests).toHaveLength(1); // a broken stream is not retried
  });
});

describe.each(PROVIDERS)('a dotted (BFCL-style) tool name ($provider)', ({ make }) => {
  const factorial: ToolSchema = {
    name: 'math.factorial',
    description: 'Compute the factorial of a non-negative integer.',
    parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  };
  const weather: ToolSchema = {
    name: 'get_weather',
    description: 'Current weather conditions for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  };

  function registryWithFactorial(seen: unknown[]): ToolRegistry {
    return new ToolRegistry()
      .register(factorial, ({ n }: { n: number }) => {
        seen.push(n);
        let out = 1;
        for (let i = 2; i <= n; i++) out *= i;
        return String(out);
      })
      .register(weather, () => 'Sunny');
  }

  it('round-trips through the wire mapping and dispatches to the registered handler', async () => {
    const seen: unknown[] = [];
    server.current.enqueue({ toolCalls: [{ name: 'math_factorial', arguments: { n: 5 } }] }, { text: '5! is 120.' });
    const run = new BareLoop({ client: make(server.current), registry: registryWithFactorial(seen) }).run(
      'What is 5 factorial?',
    );
    const events = await collect(run);

    expect(seen).toEqual([5]);
    expect(wireToolNames(server.current.requests[0])).toEqual(['math_factorial', 'get_weather']);
    expect(server.current.requests[1]?.rejected).toBeUndefined();
    const replay = JSON.stringify(wireMessages(server.current.requests[1]));
    expect(replay).toContain('math_factorial');
    expect(replay).not.toContain('math.factorial');
    expect(replay).toContain('120');
    expect(ofType(events, 'tool_call')[0]?.call.name).toBe('math.factorial');
    expect(ofType(events, 'tool_result')[0]?.result).toMatchObject({
      name: 'math.factorial',
      content: '120',
      isError: false,
    });
    expect((await run.result()).messages[2]).toMatchObject({ role: 'tool', name: 'math.factorial', content: '120' });
  });

  it('under Strict, a repeat call after the tool was selected away is refused as not offered', async () => {
    const seen: unknown[] = [];
    const plan: Record<number, string[]> = { 1: ['math.factorial'], 2: ['get_weather'] };
    server.current.enqueue(
      { toolCalls: [{ name: 'math_factorial', arguments: { n: 3 } }] },
      { toolCalls: [{ name: 'math_factorial', arguments: { n: 4 } }] },
      { text: 'ok' },
    );
    const events = await collect(
      new BareLoop({
        client: make(server.current),
        registry: registryWithFactorial(seen),
        config: { constraint: ToolConstraint.Strict },
      })
        .withToolSelector({
          name: 'plan',
          select: (ctx, all) => all.filter((t) => plan[ctx.turn]?.includes(t.name) ?? true),
        })
        .run('factorials'),
    );
    expect(seen).toEqual([3]);
    const second = ofType(events, 'tool_result').filter((e) => e.turn === 2)[0]?.result;
    expect(second?.name).toBe('math.factorial');
    expect(second?.content).toMatch(/not offered this turn/);
    expect(wireToolNames(server.current.requests[1])).toEqual(['get_weather']);
  });

  it('a StaticSelector naming the dotted tool advertises it under its wire name', async () => {
    const seen: unknown[] = [];
    server.current.enqueue({ text: 'ok' });
    await collect(
      new BareLoop({ client: make(server.current), registry: registryWithFactorial(seen) })
        .withToolSelector(new StaticSelector(['math.factorial']))
        .run('factorial'),
    );
    expect(wireToolNames(server.current.requests[0])).toEqual(['math_factorial']);
  });
});
