import { describe, expect, it } from 'vitest';
import { recordTurn } from '../../src/learn/learning-recorder.js';
import type { ToolSchema } from '../../src/registry/schema.js';

const all: ToolSchema[] = [{ name: 'get_weather', description: 'Weather for a city.', parameters: {} }];
const calls = [{ id: 'c1', name: 'get_weather', arguments: '{}' }];
const results = [{ toolCallId: 'c1', name: 'get_weather', content: 'sunny', isError: false }];

describe('recordTurn', () => {
  it("names the failure and its cause when the selector's learn rejects", async () => {
    const selector = {
      learn: async () => {
        throw new Error('learned examples write failed', { cause: new Error('QuotaExceededError: the disk is full') });
      },
    };
    const problem = await recordTurn(selector, 'weather in Oslo', calls, results, all, new AbortController().signal);
    expect(problem).toBe(
      'learning from this turn failed: learned examples write failed (QuotaExceededError: the disk is full)',
    );
  });

  it('teaches the prompt and the tools called, in the background, when every call succeeded', async () => {
    const taught: unknown[] = [];
    const selector = { learn: async (...args: unknown[]) => void taught.push(args) };
    expect(
      await recordTurn(selector, 'weather in Oslo', calls, results, all, new AbortController().signal),
    ).toBeUndefined();
    expect(taught).toMatchObject([
      [[{ query: 'weather in Oslo', tools: ['get_weather'] }], { tools: all, fit: 'background' }],
    ]);
  });
});
