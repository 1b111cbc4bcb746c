/**
 * Tool names are user data: a tool called `__proto__`, `constructor`, `toString` or
 * `hasOwnProperty` gets its reason like any other, from every selector, through the selection
 * contract and into the loop's `selection` event, and no record keyed by tool names has a
 * prototype to read from or write into.
 */
import { describe, expect, it } from 'vitest';
import { BareLoop } from '../../src/loop/bare-loop.js';
import { ToolSearch } from '../../src/loop/tool-search.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import { EmbeddingSelector } from '../../src/select/embedding-selector.js';
import { HybridSelector } from '../../src/select/hybrid-selector.js';
import { KeywordSelector } from '../../src/select/keyword-selector.js';
import { runSelection } from '../../src/select/run-selection.js';
import type { AsyncToolSelector, ToolReason } from '../../src/select/selector.js';
import { countingEmbedder } from '../embed/counting-embedder.js';
import { collect, ofType, openAI, useScriptedServer } from '../loop/helpers.js';

const ODD = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'] as const;
const tool = (name: string, description: string): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: {} },
});
// Each odd name has a description of its own that the prompt below matches.
const TOOLS: ToolSchema[] = [
  tool('__proto__', 'Inspect the prototype chain of an object.'),
  tool('constructor', 'Build a constructor for a class.'),
  tool('toString', 'Render a value as a string.'),
  tool('hasOwnProperty', 'Check an own property of an object.'),
  tool('get_weather', 'Current weather for a city.'),
];
const PROMPT = 'inspect the prototype chain, build a constructor, render a string, check an own property';
const ctx = { turn: 1, latestUserMessage: PROMPT, conversation: [{ role: 'user' as const, content: PROMPT }] };

/** An own entry, read without the `__proto__` accessor. */
const own = (reasons: Readonly<Record<string, ToolReason>>, name: string): ToolReason | undefined =>
  Object.getOwnPropertyDescriptor(reasons, name)?.value;

function expectOwnReasons(reasons: Readonly<Record<string, ToolReason>>, names: readonly string[]) {
  expect(Object.getPrototypeOf(reasons)).toBeNull();
  for (const name of names) {
    expect(Object.hasOwn(reasons, name), name).toBe(true);
    expect(typeof reasons[name], name).toBe('object');
  }
  // What JSON (the CLI, the API, SSE events) shows: every name, `__proto__` included.
  expect(Object.keys(JSON.parse(JSON.stringify(reasons))).sort()).toEqual([...names].sort());
}

describe('tools named like Object.prototype members', () => {
  const selectors: [string, () => AsyncToolSelector][] = [
    ['keyword', () => new KeywordSelector()],
    ['keyword-ranked', () => new KeywordSelector({ topK: 4 })],
    ['bm25', () => new Bm25Selector({ topK: 4 })],
    ['embedding', () => new EmbeddingSelector(countingEmbedder(), { topK: 5 })],
    ['hybrid', () => new HybridSelector(countingEmbedder(), { topK: 4 })],
  ];
  it.each(selectors)(
    '%s: each advertised odd name has its own reason, in a record with no prototype',
    async (_, make) => {
      const selection = await runSelection(make(), ctx, TOOLS, { signal: new AbortController().signal });
      expect(selection.fellOpen).toBeUndefined();
      for (const name of ODD) expect(selection.names, name).toContain(name);
      expectOwnReasons(selection.reasons, selection.names);
      expect(own(selection.reasons, '__proto__')?.score).toBeGreaterThan(0);
    },
  );

  it('core tools named toString and constructor get their core reason (nothing inherited stands in)', async () => {
    const selector = new KeywordSelector().withCoreTools(['toString', 'constructor']);
    const weather = { ...ctx, latestUserMessage: 'weather in Oslo' };
    const selection = await runSelection(selector, weather, TOOLS, { signal: new AbortController().signal });
    expect(selection.names).toEqual(['constructor', 'toString', 'get_weather']);
    expect(selection.reasons.toString).toEqual({ core: true });
    expect(selection.reasons.constructor).toEqual({ core: true });
  });

  it("applySelection keeps a plain-object record's own entries only: inherited members are not reasons", () => {
    const reasons: Record<string, ToolReason> = {};
    Object.defineProperty(reasons, '__proto__', {
      value: { score: 3 },
      enumerable: true,
      configurable: true,
      writable: true,
    });
    reasons.get_weather = { score: 1 };
    const selection = applySelection({ tools: TOOLS, reasons }, TOOLS);
    expectOwnReasons(selection.reasons, ['__proto__', 'get_weather']);
    expect(own(selection.reasons, '__proto__')).toEqual({ score: 3 });
    expect(selection.reasons.toString).toBeUndefined();
  });

  it('find_tools widening keeps the odd names as own reasons', () => {
    const search = new ToolSearch({ k: 3 }, undefined);
    const selection = applySelection(
      { tools: [TOOLS[4] as ToolSchema], reasons: { get_weather: { score: 1 } } },
      TOOLS,
    );
    const widened = search.widen(selection, TOOLS);
    expectOwnReasons(widened.reasons, ['get_weather', 'find_tools']);
    expect(widened.reasons.toString).toBeUndefined();
  });
});

describe('the loop', () => {
  const server = useScriptedServer();
  it("the selection event's reasons hold __proto__ as an own entry", async () => {
    const registry = new ToolRegistry();
    for (const schema of TOOLS) registry.register(schema, () => 'ok');
    server.current.enqueue({ text: 'done' });
    const loop = new BareLoop({ client: openAI(server.current), registry }).withToolSelector(
      new Bm25Selector({ topK: 4 }),
    );
    const [selection] = ofType(await collect(loop.run(PROMPT)), 'selection');
    expect(selection?.advertised).toContain('__proto__');
    expectOwnReasons(selection?.reasons ?? {}, selection?.advertised ?? []);
  });
});
