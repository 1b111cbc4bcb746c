import { describe, expect, expectTypeOf, it } from 'vitest';
import { mergeOptions } from '../src/options.js';

const DEFAULTS = { baseURL: 'http://127.0.0.1:11434/v1', maxTokens: 1024, field: 'max_tokens' } as const;

interface Options {
  baseURL?: string;
  maxTokens?: number;
  field?: 'max_tokens' | 'max_completion_tokens';
  apiKey?: string;
}

describe('mergeOptions', () => {
  it('keeps a default where the option is undefined, and takes every other value', () => {
    const options: Options = { baseURL: undefined, maxTokens: 0, field: 'max_completion_tokens', apiKey: '' };
    expect(mergeOptions(DEFAULTS, options)).toStrictEqual({
      baseURL: 'http://127.0.0.1:11434/v1',
      maxTokens: 0,
      field: 'max_completion_tokens',
      apiKey: '',
    });
  });

  it('never leaves an own key set to undefined, from the defaults or the options', () => {
    const merged = mergeOptions({ a: 1, b: undefined as number | undefined }, { c: undefined, d: null });
    expect(Object.keys(merged)).toEqual(['a', 'd']);
    expect('c' in merged).toBe(false);
    expect(merged.d).toBeNull();
  });

  it('layers two options objects in order, and skips a missing one', () => {
    expect(mergeOptions({ a: 1, b: 1, c: 1 }, { a: 2, b: 2 }, { b: undefined, c: 3 })).toStrictEqual({
      a: 2,
      b: 2,
      c: 3,
    });
    expect(mergeOptions({ a: 1 }, undefined, { a: undefined, b: 2 })).toStrictEqual({ a: 1, b: 2 });
    expect(mergeOptions({ a: 1 })).toStrictEqual({ a: 1 });
  });

  it('returns a new object and leaves its inputs alone', () => {
    const defaults = { a: 1 };
    const options = { a: undefined, b: 2 };
    const merged = mergeOptions(defaults, options);
    expect(merged).not.toBe(defaults);
    expect(defaults).toStrictEqual({ a: 1 });
    expect(options).toStrictEqual({ a: undefined, b: 2 });
  });

  it('keeps a key named __proto__ an ordinary key', () => {
    const merged = mergeOptions({ a: 1 }, JSON.parse('{"__proto__": {"polluted": true}}') as object);
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect((merged as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(merged)).toEqual(['a', '__proto__']);
  });

  it('types the defaulted keys as set', () => {
    const merged = mergeOptions(DEFAULTS, {} as Options);
    expectTypeOf(merged.baseURL).toEqualTypeOf<string>();
    expectTypeOf(merged.maxTokens).toEqualTypeOf<number>();
    expectTypeOf(merged.field).toEqualTypeOf<'max_tokens' | 'max_completion_tokens'>();
    expectTypeOf(merged.apiKey).toEqualTypeOf<string | undefined>();
    const layered = mergeOptions(
      { port: 8787 },
      { host: 'localhost' as string | undefined },
      { port: undefined as number | undefined },
    );
    expectTypeOf(layered.port).toEqualTypeOf<number>();
  });
});
