/** The page's thousands grouping writes what `toLocaleString('en-US')` writes, without ICU. */
import { describe, expect, it } from 'vitest';
import { groupThousands } from '../../public/format.js';

describe('groupThousands', () => {
  it('matches en-US grouping for integers of every length and sign', () => {
    for (const value of [0, 7, 42, 999, 1000, 12345, 999_999, 1_000_000, 123_456_789, -1, -1234, -1_000_000]) {
      expect(groupThousands(value)).toBe(value.toLocaleString('en-US'));
    }
    expect(groupThousands(1234.6)).toBe('1,235');
  });
});
