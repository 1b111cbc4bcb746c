import { describe, expect, it, vi } from 'vitest';
import type { ToolCall } from '../../src/message.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { ToolSchema } from '../../src/registry/schema.js';

const weather: ToolSchema = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const clock: ToolSchema = {
  name: 'clock',
  description: 'The current time.',
  parameters: { type: 'object', properties: {} },
};
const sum: ToolSchema = {
  name: 'sum',
  description: 'Add numbers.',
  parameters: {
    type: 'object',
    properties: { list: { type: 'array', items: { type: 'number' } } },
    required: ['list'],
  },
};

const ok = () => 'ok';
const call = (name: string, args: string, id = 'c1'): ToolCall => ({ id, name, arguments: args });
const names = (registry: ToolRegistry) => registry.schemas().map((tool) => tool.name);

describe('ToolRegistry: registration', () => {
  it('registers a schema with its handler and dispatches to that handler', async () => {
    const handler = vi.fn(({ city }: { city: string }) => `Sunny in ${city}`);
    const registry = new ToolRegistry().register(weather, handler);
    expect(registry.has('get_weather')).toBe(true);
    expect(registry.size).toBe(1);
    expect(registry.get('get_weather')).toEqual(weather);
    const result = await registry.dispatch(call('get_weather', '{"city":"Oslo"}', 'abc'));
    expect(result).toEqual({ toolCallId: 'abc', name: 'get_weather', content: 'Sunny in Oslo', isError: false });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(handler.mock.calls[0]?.[0]).toEqual({ city: 'Oslo' });
  });

  it('lists schemas in registration order, not name order', () => {
    const registry = new ToolRegistry().register(weather, ok).register(sum, ok).register(clock, ok);
    expect(names(registry)).toEqual(['get_weather', 'sum', 'clock']);
  });

  it('rejects a duplicate name unless replacing', () => {
    const registry = new ToolRegistry().register(weather, ok);
    expect(() => registry.register({ ...weather, description: 'Other.' }, ok)).toThrow(
      /get_weather.*already registered/,
    );
    expect(registry.get('get_weather')?.description).toBe(weather.description);
    registry.register({ ...weather, description: 'Other.' }, ok, { replace: true });
    expect(registry.get('get_weather')?.description).toBe('Other.');
    expect(registry.size).toBe(1);
  });

  it('registerMany adds all in order, and rejects a batch with a duplicate without adding any', () => {
    const registry = new ToolRegistry().registerMany([
      { schema: clock, handler: ok },
      { schema: weather, handler: ok },
    ]);
    expect(names(registry)).toEqual(['clock', 'get_weather']);

    expect(() =>
      registry.registerMany([
        { schema: sum, handler: ok },
        { schema: clock, handler: ok },
      ]),
    ).toThrow(/clock.*already registered/);
    expect(() =>
      registry.registerMany([
        { schema: sum, handler: ok },
        { schema: sum, handler: ok },
      ]),
    ).toThrow(/sum.*twice/);
    expect(registry.has('sum')).toBe(false);
    expect(names(registry)).toEqual(['clock', 'get_weather']);
  });

  it('registerMany with a bad handler adds nothing and leaves schemas() and generation consistent', () => {
    const registry = new ToolRegistry().register(clock, ok);
    const before = registry.schemas();
    const generation = registry.generation;
    expect(() =>
      registry.registerMany([
        { schema: sum, handler: ok },
        { schema: weather, handler: 'not a function' as never },
      ]),
    ).toThrow(/handler must be a function/);
    expect(registry.has('sum')).toBe(false);
    expect(registry.size).toBe(1);
    expect(registry.schemas()).toBe(before);
    expect(registry.generation).toBe(generation);
  });

  it('replace keeps the position and swaps the handler', async () => {
    const registry = new ToolRegistry()
      .register(weather, () => 'old')
      .register(clock, ok)
      .register(sum, ok);
    registry.replace({ ...weather, description: 'Weather now.' }, () => 'new');
    expect(names(registry)).toEqual(['get_weather', 'clock', 'sum']);
    expect(registry.get('get_weather')?.description).toBe('Weather now.');
    expect((await registry.dispatch(call('get_weather', '{"city":"x"}'))).content).toBe('new');
  });

  it('replace of an unregistered name is an error', () => {
    expect(() => new ToolRegistry().replace(weather, ok)).toThrow(/get_weather.*not registered/);
  });

  it('unregister removes the tool and reports whether it was there', async () => {
    const registry = new ToolRegistry().register(weather, ok).register(clock, ok);
    expect(registry.unregister('get_weather')).toBe(true);
    expect(registry.unregister('get_weather')).toBe(false);
    expect(names(registry)).toEqual(['clock']);
    const result = await registry.dispatch(call('get_weather', '{"city":"x"}'));
    expect(result.isError).toBe(true);
  });

  it('rejects malformed schemas and handlers at registration', () => {
    const registry = new ToolRegistry();
    expect(() => registry.register({ ...weather, name: '' }, ok)).toThrow(/name: "" is refused: tool names are 1-64/);
    expect(() => registry.register({ ...weather, description: 42 as never }, ok)).toThrow(
      /description: must be a string/,
    );
    expect(() => registry.register({ ...weather, parameters: [] as never }, ok)).toThrow(
      /parameters: must be a JSON Schema of type object/,
    );
    expect(() => registry.register(weather, undefined as never)).toThrow(/handler must be a function/);
    expect(registry.size).toBe(0);
  });

  it('schemas() returns the same array until the registry changes', () => {
    const registry = new ToolRegistry().register(weather, ok);
    const first = registry.schemas();
    expect(registry.schemas()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    registry.register(clock, ok);
    expect(registry.schemas()).not.toBe(first);
    expect(first.map((tool) => tool.name)).toEqual(['get_weather']);
  });
});

describe('ToolRegistry: generation', () => {
  it('changes on register, and only when the ordered list changes', () => {
    const registry = new ToolRegistry();
    const g0 = registry.generation;
    registry.register(weather, ok);
    const g1 = registry.generation;
    expect(g1).not.toBe(g0);
    registry.register(clock, ok);
    expect(registry.generation).not.toBe(g1);
  });

  it('a no-op replace (same name, description, parameters; new handler) keeps it', () => {
    const registry = new ToolRegistry().register(weather, ok).register(clock, ok);
    const g = registry.generation;
    const listener = vi.fn();
    registry.onChange(listener);
    registry.replace({ ...weather, parameters: structuredClone(weather.parameters) }, () => 'other');
    registry.register({ ...clock }, ok, { replace: true });
    registry.registerMany([{ schema: weather, handler: ok }], { replace: true });
    expect(registry.generation).toBe(g);
    expect(listener).not.toHaveBeenCalled();
  });

  it('a description change changes it', () => {
    const registry = new ToolRegistry().register(weather, ok);
    const g = registry.generation;
    registry.replace({ ...weather, description: 'Weather, now with wind.' }, ok);
    expect(registry.generation).not.toBe(g);
  });

  it('a parameters change changes it', () => {
    const registry = new ToolRegistry().register(weather, ok);
    const g = registry.generation;
    registry.replace({ ...weather, parameters: { type: 'object', properties: { town: { type: 'string' } } } }, ok);
    expect(registry.generation).not.toBe(g);
  });

  it('a reorder via unregister + register changes it, even though the set of tools is the same', () => {
    const registry = new ToolRegistry().register(weather, ok).register(clock, ok);
    const g = registry.generation;
    registry.unregister('get_weather');
    registry.register(weather, ok);
    expect(names(registry)).toEqual(['clock', 'get_weather']);
    expect(registry.generation).not.toBe(g);
  });

  it('unregistering an unknown name keeps it', () => {
    const registry = new ToolRegistry().register(weather, ok);
    const g = registry.generation;
    registry.unregister('nope');
    expect(registry.generation).toBe(g);
  });

  it('notifies listeners with the new generation, and stops after unsubscribe', () => {
    const registry = new ToolRegistry();
    const seen: number[] = [];
    const stop = registry.onChange((generation) => seen.push(generation));
    registry.register(weather, ok);
    expect(seen).toEqual([registry.generation]);
    stop();
    registry.register(clock, ok);
    expect(seen).toHaveLength(1);
  });
});

describe('ToolRegistry: dispatch never throws for a model mistake', () => {
  it('an unknown name comes back as an error result that says so', async () => {
    const registry = new ToolRegistry().register(weather, ok);
    const result = await registry.dispatch(call('get_wether', '{}', 'x9'));
    expect(result.isError).toBe(true);
    expect(result.toolCallId).toBe('x9');
    expect(result.name).toBe('get_wether');
    expect(result.content).toMatch(/unknown tool/);
    expect(result.content).toContain('get_wether');
  });

  it('arguments failing the schema are an error result naming the path, and the handler never runs', async () => {
    const handler = vi.fn(ok);
    const registry = new ToolRegistry().register(sum, handler).register(weather, handler);

    const wrongItem = await registry.dispatch(call('sum', '{"list":[1,"two",3]}'));
    expect(wrongItem.isError).toBe(true);
    expect(wrongItem.content).toContain('/list/1');
    expect(wrongItem.content).toContain('sum');

    const wrongType = await registry.dispatch(call('get_weather', '{"city":42}'));
    expect(wrongType.isError).toBe(true);
    expect(wrongType.content).toContain('/city');

    const missing = await registry.dispatch(call('get_weather', '{}'));
    expect(missing.isError).toBe(true);
    expect(missing.content).toContain('city');

    expect(handler).not.toHaveBeenCalled();
  });

  it('a nested violation names the nested path only, not every enclosing summary', async () => {
    const handler = vi.fn(ok);
    const registry = new ToolRegistry().register(
      {
        name: 'deep',
        description: 'Nested.',
        parameters: {
          type: 'object',
          properties: { opts: { type: 'object', properties: { depth: { type: 'integer', minimum: 1 } } } },
        },
      },
      handler,
    );
    const result = await registry.dispatch(call('deep', '{"opts":{"depth":0}}'));
    expect(result.isError).toBe(true);
    expect(result.content).toContain('/opts/depth');
    expect(result.content).not.toMatch(/does not match schema/);
    expect(handler).not.toHaveBeenCalled();
  });

  it('arguments that are not JSON are an error result, and the handler never runs', async () => {
    const handler = vi.fn(ok);
    const registry = new ToolRegistry().register(weather, handler);
    const result = await registry.dispatch(call('get_weather', '{"city": "Oslo"'));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/not valid JSON/);
    expect(handler).not.toHaveBeenCalled();
  });

  it('empty arguments mean {} (valid for a tool with no required fields)', async () => {
    const handler = vi.fn((_args: unknown) => 'tick');
    const registry = new ToolRegistry().register(clock, handler);
    const result = await registry.dispatch(call('clock', '  '));
    expect(result).toMatchObject({ isError: false, content: 'tick' });
    expect(handler.mock.calls[0]?.[0]).toEqual({});
  });

  it('a tool with an empty parameters schema accepts any JSON', async () => {
    const handler = vi.fn((args: unknown) => args);
    const registry = new ToolRegistry().register({ name: 'echo', description: 'Echo.', parameters: {} }, handler);
    const result = await registry.dispatch(call('echo', '[1,"a"]'));
    expect(result).toMatchObject({ isError: false, content: '[1,"a"]' });
  });

  it('a throwing handler (sync, async, or non-Error) is an error result with its message', async () => {
    const registry = new ToolRegistry()
      .register({ ...clock, name: 'sync' }, () => {
        throw new Error('disk on fire');
      })
      .register({ ...clock, name: 'async' }, async () => {
        throw new Error('network down');
      })
      .register({ ...clock, name: 'odd' }, () => {
        throw 'plain string';
      });
    const syncResult = await registry.dispatch(call('sync', '{}'));
    expect(syncResult).toMatchObject({ isError: true, name: 'sync' });
    expect(syncResult.content).toContain('disk on fire');
    expect((await registry.dispatch(call('async', '{}'))).content).toContain('network down');
    expect((await registry.dispatch(call('odd', '{}'))).content).toContain('plain string');
  });

  it('a tool whose own schema is broken yields an error result instead of rejecting', async () => {
    const handler = vi.fn(ok);
    const registry = new ToolRegistry()
      .register(
        {
          name: 'bad_ref',
          description: 'Broken reference.',
          parameters: { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
        },
        handler,
      )
      .register(
        {
          name: 'bad_pattern',
          description: 'Broken pattern.',
          parameters: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
        },
        handler,
      );
    for (const name of ['bad_ref', 'bad_pattern']) {
      const result = await registry.dispatch(call(name, '{"a":"x"}'));
      expect(result.isError).toBe(true);
      expect(result.content).toContain(name);
    }
    expect(handler).not.toHaveBeenCalled();
  });

  it('renders results: strings verbatim, values as JSON, undefined as empty', async () => {
    const registry = new ToolRegistry()
      .register({ ...clock, name: 'text' }, () => 'plain "text"')
      .register({ ...clock, name: 'json' }, async () => ({ a: 1, b: [true] }))
      .register({ ...clock, name: 'nothing' }, () => undefined);
    expect((await registry.dispatch(call('text', '{}'))).content).toBe('plain "text"');
    expect((await registry.dispatch(call('json', '{}'))).content).toBe('{"a":1,"b":[true]}');
    expect((await registry.dispatch(call('nothing', '{}'))).content).toBe('');
  });

  it('hands the signal and the call to the handler', async () => {
    const controller = new AbortController();
    let seen: { signal: AbortSignal; call: ToolCall } | undefined;
    const registry = new ToolRegistry().register(clock, (_args, context) => {
      seen = context;
      return 'ok';
    });
    const theCall = call('clock', '{}', 'id-7');
    await registry.dispatch(theCall, { signal: controller.signal });
    expect(seen?.signal).toBe(controller.signal);
    expect(seen?.call).toEqual(theCall);
  });

  it('an already-aborted signal is a cancelled error result and the handler never runs', async () => {
    const controller = new AbortController();
    controller.abort();
    const handler = vi.fn(ok);
    const registry = new ToolRegistry().register(clock, handler);
    const result = await registry.dispatch(call('clock', '{}'), { signal: controller.signal });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/cancelled/);
    expect(handler).not.toHaveBeenCalled();
  });

  it('an abort during the handler is a cancelled error result', async () => {
    const controller = new AbortController();
    const registry = new ToolRegistry().register(
      clock,
      (_args, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    );
    const pending = registry.dispatch(call('clock', '{}'), { signal: controller.signal });
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ isError: true });
    expect(result.content).toMatch(/cancelled/);
  });
});
