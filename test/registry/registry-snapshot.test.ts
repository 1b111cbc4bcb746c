import { describe, expect, it } from 'vitest';
import { type Derivation, registrySnapshot } from '../../src/registry/registry-snapshot.js';

describe('registrySnapshot', () => {
  it('one snapshot per list; each derivation built once per snapshot', () => {
    const tools = [{ name: 'a', description: '', parameters: { type: 'object' as const } }];
    let builds = 0;
    const names: Derivation<string[]> = ({ tools: list }) => {
      builds++;
      return list.map((tool) => tool.name);
    };
    const counted: Derivation<number> = (snapshot) => snapshot.get(names).length;
    expect(registrySnapshot(tools)).toBe(registrySnapshot(tools));
    expect(registrySnapshot(tools).get(counted)).toBe(1);
    expect(registrySnapshot(tools).get(names)).toBe(registrySnapshot(tools).get(names));
    expect(builds).toBe(1);
    // A new generation (a new list, even with the same tools) is a new snapshot.
    expect(registrySnapshot([...tools]).get(names)).toEqual(['a']);
    expect(builds).toBe(2);
  });
});
