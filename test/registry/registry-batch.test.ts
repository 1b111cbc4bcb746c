import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { ToolSchema } from '../../src/registry/schema.js';

const tool = (name: string, description = `The ${name} tool.`): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: { q: { type: 'string' } } },
});
const ok = () => 'ok';
const names = (registry: ToolRegistry) => registry.schemas().map((schema) => schema.name);

function seeded(): { registry: ToolRegistry; changes: number[] } {
  const registry = new ToolRegistry().registerMany(
    ['a', 'b', 'c', 'd'].map((name) => ({ schema: tool(name), handler: ok })),
  );
  const changes: number[] = [];
  registry.onChange((generation) => changes.push(generation));
  return { registry, changes };
}

describe('ToolRegistry.batch', () => {
  it('adds, replaces and removes with one generation change and one notification', () => {
    const { registry, changes } = seeded();
    const before = registry.generation;
    registry.batch((r) => {
      r.unregister('b');
      r.replace(tool('c', 'Edited description.'), ok);
      r.register(tool('e'), ok);
      r.register(tool('a'), ok, { replace: true }); // a no-op replacement
    });
    expect(changes).toEqual([before + 1]);
    expect(registry.generation).toBe(before + 1);
    expect(names(registry)).toEqual(['a', 'c', 'd', 'e']);
    expect(registry.get('c')?.description).toBe('Edited description.');
  });

  it('changes nothing (no generation, no notification) when the batch is a no-op overall', () => {
    const { registry, changes } = seeded();
    const before = registry.generation;
    const schemas = registry.schemas();
    registry.batch((r) => {
      r.unregister('d');
      r.register(tool('d'), ok); // back where it was: last, same schema
      r.register(tool('a'), () => 'new handler', { replace: true });
    });
    expect(changes).toEqual([]);
    expect(registry.generation).toBe(before);
    expect(registry.schemas()).toBe(schemas);
  });

  it('serves the published surface from schemas() and generation until the batch ends', () => {
    const { registry } = seeded();
    const published = registry.schemas();
    const generation = registry.generation;
    registry.batch((r) => {
      r.unregister('a');
      r.register(tool('z'), ok);
      expect(r.schemas()).toBe(published);
      expect(r.generation).toBe(generation);
      expect(r.has('a')).toBe(false);
      expect(r.has('z')).toBe(true);
    });
    expect(names(registry)).toEqual(['b', 'c', 'd', 'z']);
  });

  it('rolls every change back when fn throws, and rethrows', async () => {
    const { registry, changes } = seeded();
    const generation = registry.generation;
    const schemas = registry.schemas();
    expect(() =>
      registry.batch((r) => {
        r.unregister('a');
        r.replace(tool('b', 'Changed.'), () => 'changed');
        r.register(tool('x'), ok);
        r.register(tool('c'), ok); // duplicate without replace: throws
      }),
    ).toThrow(/"c" is already registered/);
    expect(changes).toEqual([]);
    expect(registry.generation).toBe(generation);
    expect(registry.schemas()).toBe(schemas);
    expect(registry.has('a')).toBe(true);
    expect(registry.has('x')).toBe(false);
    expect(registry.get('b')?.description).toBe('The b tool.');
    expect((await registry.dispatch({ id: '1', name: 'b', arguments: '{}' })).content).toBe('ok');
  });

  it('rejects an async fn and rolls back what it did before its first await', async () => {
    const { registry, changes } = seeded();
    expect(() =>
      registry.batch(async (r) => {
        r.unregister('a');
      }),
    ).toThrow(/must be synchronous/);
    expect(registry.has('a')).toBe(true);
    expect(changes).toEqual([]);
  });

  it('nests: an inner batch publishes nothing; the outermost publishes once', () => {
    const { registry, changes } = seeded();
    registry.batch((r) => {
      r.batch((inner) => inner.unregister('a'));
      expect(changes).toEqual([]);
      r.register(tool('y'), ok);
    });
    expect(changes).toHaveLength(1);
    expect(names(registry)).toEqual(['b', 'c', 'd', 'y']);
  });

  it('a failed inner batch rolls back only its own changes', () => {
    const { registry, changes } = seeded();
    registry.batch((r) => {
      r.unregister('a');
      expect(() =>
        r.batch((inner) => {
          inner.unregister('b');
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(r.has('b')).toBe(true);
    });
    expect(changes).toHaveLength(1);
    expect(names(registry)).toEqual(['b', 'c', 'd']);
  });

  it('returns what fn returns', () => {
    const { registry } = seeded();
    expect(registry.batch((r) => r.unregister('a'))).toBe(true);
  });
});
