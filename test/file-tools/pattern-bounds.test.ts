/**
 * Grep and Glob run patterns a model wrote: the work per call is bounded, and an abort is
 * honoured while they run (review item 5). The patterns here make a backtracking matcher
 * take seconds to minutes; the bounds asserted are far above what a linear matcher needs.
 */
import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../src/file-tools/file-tools.js';
import { memoryFileSystem, registerFileTools } from '../../src/file-tools/file-tools.js';
import type { FileToolsOptions } from '../../src/file-tools/options.js';
import type { ToolResult } from '../../src/message.js';
import { ToolRegistry } from '../../src/registry/registry.js';

function tools(files: Record<string, string>, options: FileToolsOptions = {}) {
  const registry = new ToolRegistry();
  registerFileTools(registry, memoryFileSystem(files), options);
  return (name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> =>
    registry.dispatch({ id: name, name, arguments: JSON.stringify(args) }, { signal });
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await work();
  return [value, performance.now() - start];
}

/** Deterministic a/b text: no repeats for a matcher state that remembers the last 25 characters. */
function randomLines(seed: number, lines: number, width: number): string {
  let state = seed;
  const out: string[] = [];
  for (let l = 0; l < lines; l++) {
    let line = '';
    for (let c = 0; c < width; c++) {
      state = (state * 1103515245 + 12345) >>> 0;
      line += state & 0x10000 ? 'a' : 'b';
    }
    out.push(line);
  }
  return `${out.join('\n')}\n`;
}

/** A read-only root of `count` files sharing one text of `size` bytes; reads settle at once, as in memory. */
function manyFiles(count: number, size: number): FileSystem {
  const line = `${'the quick brown fox jumps over the lazy dog '.repeat(2)}\n`;
  const bytes = new TextEncoder().encode(line.repeat(Math.ceil(size / line.length)).slice(0, size));
  const names = Array.from({ length: count }, (_, i) => `f${String(i).padStart(5, '0')}.txt`);
  const known = new Set(names);
  const isFile = (path: string) => known.has(path);
  return {
    kind: 'memory',
    readFile: async () => bytes,
    writeFile: async () => {
      throw new Error('read-only');
    },
    stat: async (path) =>
      path === '' ? { isFile: false, isDirectory: true, size: 0 } : { isFile: isFile(path), isDirectory: false, size },
    list: async () => names.map((name) => ({ name, kind: 'file' as const })),
    mkdir: async () => undefined,
  };
}

describe('Grep bounds the work of a model-supplied pattern', () => {
  it('(a+)+$ over a line of 27 a and a b is fast and right (a backtracking matcher takes many seconds)', async () => {
    const call = tools({ 'x.txt': `${'a'.repeat(27)}b\n${'a'.repeat(27)}\nab\n` });
    const [result, ms] = await timed(() => call('Grep', { pattern: '(a+)+$' }));
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe(`x.txt:2:${'a'.repeat(27)}`);
    expect(ms).toBeLessThan(1500);
  });

  it('an abort during a long search ends the call promptly as cancelled', async () => {
    // Ten thousand files of 200 KB (one buffer, so the test stays small): many seconds of
    // matching for any matcher, all of it synchronous between the in-memory reads.
    const call = (name: string, args: Record<string, unknown>, signal: AbortSignal) => {
      const registry = new ToolRegistry();
      registerFileTools(registry, manyFiles(10_000, 200 * 1024), { maxPatternSteps: Number.MAX_SAFE_INTEGER });
      return registry.dispatch({ id: name, name, arguments: JSON.stringify(args) }, { signal });
    };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const [result, ms] = await timed(() => call('Grep', { pattern: 'needle\\d+' }, controller.signal));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/cancelled/);
    expect(ms).toBeLessThan(3000);
  });

  it('a pattern past the step budget is a clear error, not a hang', async () => {
    const call = tools({ 'x.txt': randomLines(7, 50, 2000) }, { maxPatternSteps: 100_000 });
    const result = await call('Grep', { pattern: '[ab]*a[ab]{25}c' });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/pattern too expensive: .*maxPatternSteps/);
  });
});

describe('Grep names what it cannot do in linear time', () => {
  it('a back-reference or lookaround is a clear error, not a slow search', async () => {
    const call = tools({ 'x.txt': 'abab\n' });
    const back = await call('Grep', { pattern: '(ab)\\1' });
    expect(back.isError).toBe(true);
    expect(back.content).toBe(
      'tool "Grep" failed: unsupported regular expression /(ab)\\1/: back-references (\\1, \\k<name>) are not supported; ' +
        'Grep matches in linear time, without backtracking',
    );
    const look = await call('Grep', { pattern: 'a(?=b)' });
    expect(look.content).toMatch(/unsupported regular expression .*lookahead and lookbehind/);
  });

  it('a pattern that compiles too large is refused with its limit', async () => {
    const call = tools({ 'x.txt': 'x\n' }, { maxPatternStates: 500 });
    const result = await call('Grep', { pattern: 'x{1000}' });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/pattern too expensive: the pattern \/x\{1000\}\/ needs over 500 states/);
  });

  it('groups nested thousands deep are refused, not a crash', async () => {
    const call = tools({ 'x.txt': 'a\n' });
    const result = await call('Grep', { pattern: `${'('.repeat(20_000)}a${')'.repeat(20_000)}` });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/pattern too expensive: .* nests its groups too deeply$/);
  });

  it('limits must be positive integers', () => {
    expect(() => tools({}, { maxPatternSteps: 0 })).toThrow(/maxPatternSteps must be a positive integer/);
    expect(() => tools({}, { maxPatternStates: 1.5 })).toThrow(/maxPatternStates must be a positive integer/);
  });
});

describe('Glob bounds the work of a model-supplied pattern', () => {
  it('twelve **/ against a deep path is fast (a backtracking matcher takes many seconds)', async () => {
    const deep = Array.from({ length: 24 }, (_, i) => `d${i}`).join('/');
    const call = tools({ [`${deep}/y.txt`]: 'y', [`${deep}/x.txt`]: 'x' });
    const [result, ms] = await timed(() => call('Glob', { pattern: `${'**/'.repeat(12)}x.txt` }));
    expect(result.isError).toBeFalsy();
    expect(result.content).toBe(`${deep}/x.txt`);
    expect(ms).toBeLessThan(1500);
  });

  it('a glob past the step budget is a clear error', async () => {
    const call = tools({ [`${'a'.repeat(100)}.txt`]: 'y' }, { maxPatternSteps: 50 });
    const result = await call('Glob', { pattern: '**/*.md' });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/pattern too expensive: .*maxPatternSteps limit of Glob/);
  });

  it('many stars in one segment are fast too', async () => {
    const call = tools({ [`${'a'.repeat(120)}.txt`]: 'y' });
    const [result, ms] = await timed(() => call('Glob', { pattern: `${'*a'.repeat(5)}*b` }));
    expect(result.isError).toBeFalsy();
    expect(result.content).toMatch(/^No files match/);
    expect(ms).toBeLessThan(1500);
  });
});
