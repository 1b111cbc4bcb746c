/**
 * digestJson: SHA-256 of a value's JSON text, the key of the hybrid's shipped state. Strings are
 * framed by JSON itself, and a lone surrogate is escaped, so distinct values give distinct texts.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestJson } from '../src/digest.js';

describe('digestJson', () => {
  it('is the SHA-256 of the JSON text, as hex', async () => {
    const value = ['loopctl/hybrid-state/v1', 'use-lite', 512, [['get_weather', 'Weather', { type: 'object' }]]];
    expect(await digestJson(value)).toBe(createHash('sha256').update(JSON.stringify(value)).digest('hex'));
  });

  it('frames every string: moved boundaries, lone surrogates and U+FFFD give different keys', async () => {
    const keys = await Promise.all([
      digestJson(['ab', 'c']),
      digestJson(['a', 'bc']),
      digestJson(['\uD800']),
      digestJson(['\uDC00']),
      digestJson(['\uFFFD']),
    ]);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
