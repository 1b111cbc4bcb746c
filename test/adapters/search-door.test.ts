/**
 * The SDK adapters keep one list object per tool-list content, shared by every caller in the
 * process. Two lists that differ must never share an entry: the second list below met the
 * first's old 64-bit key (`Hash64`, found offline by a meet-in-the-middle search over its two
 * lanes), so the old code searched the first caller's tools for the second.
 */
import { describe, expect, it } from 'vitest';
import { stableList } from '../../src/adapters/search-door.js';
import { Hash64 } from '../../src/hash.js';
import type { ToolSchema } from '../../src/registry/schema.js';

const FIXING = String.fromCharCode(19981, 36688, 30954, 36901, 38067);
const first: ToolSchema[] = [
  { name: 'get_weather', description: 'Get the weather forecast for a city.', parameters: {} },
];
const second: ToolSchema[] = [
  { name: 'delete_repository', description: `Get the weather forecast for a city. ${FIXING}`, parameters: {} },
];

// The key stableList used before it keyed on the content itself.
function oldKey(tools: readonly ToolSchema[]): string {
  const hash = new Hash64();
  for (const tool of tools)
    hash.update(`${tool.name}\u0000${tool.description}\u0000${JSON.stringify(tool.parameters ?? {})}\u0001`);
  return hash.digest();
}

describe('stableList', () => {
  it('the fixture is a real collision of the old key', () => {
    expect(oldKey(second)).toBe(oldKey(first));
  });

  it('gives each content its own list, and the same list for the same content', () => {
    const a = stableList(first);
    const b = stableList(second);
    expect(b.map((tool) => tool.name)).toEqual(['delete_repository']);
    expect(a.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(stableList(first.map((tool) => ({ ...tool })))).toBe(a);
    expect(stableList([{ ...first[0], parameters: { type: 'object' } } as ToolSchema])).not.toBe(a);
  });
});
