import { describe, expect, it } from 'vitest';
import type { JsonSchema, ToolSchema } from '../../src/registry/schema.js';
import { applySelection } from '../../src/select/apply-selection.js';
import { Bm25Selector } from '../../src/select/bm25-selector.js';
import type { SelectionContext } from '../../src/select/selector.js';

const tool = (name: string, description: string, parameters: JsonSchema = {}): ToolSchema => ({
  name,
  description,
  parameters,
});
const ctx = (prompt: string | undefined): SelectionContext => ({
  turn: 1,
  latestUserMessage: prompt,
  conversation: [],
});
const names = (selector: Bm25Selector, all: readonly ToolSchema[], prompt: string) =>
  applySelection(selector.select(ctx(prompt), all), all).names;

// Documents (split name, description, parameter names and parameter descriptions), counted by hand:
//   geocode: geocode coordinates place city name city   (6 words; "city" twice, both from the parameter)
//   clock:   clock current time                         (3 words)
//   weather: weather weather forecast                   (3 words; "weather" twice)
// Average length 4.
const corpus: readonly ToolSchema[] = [
  tool('geocode', 'Coordinates of a place.', {
    type: 'object',
    properties: { city: { type: 'string', description: 'Name of the city' } },
  }),
  tool('clock', 'Current time.'),
  tool('weather', 'Weather forecast.'),
];

/** Textbook BM25 (k1 = 1.2, b = 0.75, idf = ln(1 + (N − df + 0.5) / (df + 0.5))) for one term. */
function bm25Term(tf: number, df: number, length: number, n = 3, avgLength = 4): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * length) / avgLength));
}

describe('Bm25Selector', () => {
  it('scores with BM25 and reports each score as the reason', () => {
    const output = new Bm25Selector().select(ctx('weather for my city'), corpus);
    expect(output.reasons?.weather?.score).toBeCloseTo(bm25Term(2, 1, 3), 10);
    expect(output.reasons?.geocode?.score).toBeCloseTo(bm25Term(2, 1, 6), 10);
    expect(output.reasons?.clock).toBeUndefined();
  });

  it('keeps the top k and returns them in registry order, not score order', () => {
    // weather outscores geocode (same tf and df, shorter document) but comes later in the registry.
    expect(names(new Bm25Selector({ topK: 1 }), corpus, 'weather city')).toEqual(['weather']);
    expect(names(new Bm25Selector({ topK: 2 }), corpus, 'weather city')).toEqual(['geocode', 'weather']);
    expect(names(new Bm25Selector({ topK: 3 }), corpus, 'weather city')).toEqual(['geocode', 'weather']);
  });

  it('advertises 8 tools by default', () => {
    const many = Array.from({ length: 12 }, (_, i) => tool(`report_${i}`, `Report number ${'x'.repeat(i + 3)}.`));
    expect(names(new Bm25Selector(), many, 'report')).toHaveLength(8);
  });

  it('counts parameter names and parameter descriptions', () => {
    // "city" is only a parameter name, "name" only a parameter description.
    expect(names(new Bm25Selector(), corpus, 'city')).toEqual(['geocode']);
    expect(names(new Bm25Selector(), corpus, 'name')).toEqual(['geocode']);
  });

  it('counts nested parameter descriptions and string enum values', () => {
    const all = [
      tool('convert', 'Convert an amount.', {
        type: 'object',
        properties: {
          target: { type: 'object', properties: { unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } } },
          items: { type: 'array', items: { type: 'object', properties: { note: { description: 'Free annotation' } } } },
        },
      }),
      tool('clock', 'Current time.'),
    ];
    expect(names(new Bm25Selector(), all, 'fahrenheit')).toEqual(['convert']);
    expect(names(new Bm25Selector(), all, 'annotation')).toEqual(['convert']);
  });

  it('stopwords carry no score', () => {
    const withStopwords = new Bm25Selector().select(ctx('the weather for the city'), corpus);
    const without = new Bm25Selector().select(ctx('weather city'), corpus);
    expect(withStopwords.reasons).toEqual(without.reasons);
  });

  it('falls open to the full surface on a total miss, saying why', () => {
    const miss = new Bm25Selector().select(ctx('zebra migration'), corpus);
    expect(miss.tools).toEqual(corpus);
    expect(miss.fellOpen).toBe('no tool matched the prompt');
    const empty = new Bm25Selector().select(ctx('the of and'), corpus);
    expect(empty.tools).toEqual(corpus);
    expect(empty.fellOpen).toBe('the prompt has no words to match');
    expect(new Bm25Selector().select(ctx(undefined), corpus).fellOpen).toBeDefined();
  });

  it('unions core tools into a non-empty selection', () => {
    const selector = new Bm25Selector({ topK: 1 }).withCoreTools(['clock']);
    const selection = applySelection(selector.select(ctx('weather'), corpus), corpus);
    expect(selection.names).toEqual(['clock', 'weather']);
    expect(selection.reasons.clock).toEqual({ core: true });
  });

  it('is deterministic', () => {
    const selector = new Bm25Selector({ topK: 2 });
    expect(selector.select(ctx('weather city time'), corpus)).toEqual(
      selector.select(ctx('weather city time'), [...corpus]),
    );
  });

  describe('withTopK', () => {
    it('returns a copy with the new k, leaving the original alone', () => {
      const two = new Bm25Selector({ topK: 2 });
      const one = two.withTopK(1);
      expect(names(one, corpus, 'weather city')).toEqual(['weather']);
      expect(names(two, corpus, 'weather city')).toEqual(['geocode', 'weather']);
    });

    it('keeps the core tools', () => {
      const selector = new Bm25Selector().withCoreTools(['clock']).withTopK(1);
      expect(names(selector, corpus, 'weather')).toEqual(['clock', 'weather']);
    });

    it.each([0, -1, 2.5, Number.NaN, Number.POSITIVE_INFINITY])('rejects k = %s', (k) => {
      expect(() => new Bm25Selector().withTopK(k)).toThrow(RangeError);
      expect(() => new Bm25Selector({ topK: k })).toThrow(/topK must be a positive integer/);
    });

    it('an explicitly undefined option means the default', () => {
      const many = Array.from({ length: 10 }, (_, i) => tool(`report_${i}`, 'Report.'));
      const selector = new Bm25Selector({ topK: undefined, coreTools: undefined });
      expect(names(selector, many, 'report')).toHaveLength(8);
      expect(names(selector.withCoreTools(['report_9']).withTopK(1), many, 'report')).toEqual(['report_0', 'report_9']);
    });
  });
});
