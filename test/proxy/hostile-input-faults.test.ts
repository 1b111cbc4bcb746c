import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HOSTILE_INPUT_FAULTS } from './hostile-input-faults.js';

describe('the fault matrix’s hostile-input rows', () => {
  it('name only test files that exist', () => {
    const named = HOSTILE_INPUT_FAULTS.flatMap((row) =>
      [...row.test.matchAll(/`([^`]+\.test\.ts)`/g)].map((m) => m[1]),
    );
    expect(named.length).toBeGreaterThanOrEqual(HOSTILE_INPUT_FAULTS.length);
    for (const path of named) expect(existsSync(new URL(`../../${path}`, import.meta.url)), path).toBe(true);
  });
});
