import { describe, expect, it } from 'vitest';
import { registrySnapshot } from '../../src/registry/registry-snapshot.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import {
  intentClauses,
  itemBests,
  parameterLift,
  parameterStage,
  parameterWords,
  sharePicks,
} from '../../src/select/multi-intent.js';
import { applyContribution, type RankTurn, rankText } from '../../src/select/rank-stages.js';
import { englishLoaded } from '../../src/text/english.js';

// Each ranking (the prompt's first, then its clauses') through the parameter stage, starting
// from the given scores.
function liftRankings(
  rankings: readonly Float64Array[],
  texts: readonly string[],
  all: readonly ToolSchema[],
  weights: { parameters?: number },
): Float64Array[] {
  const turn: RankTurn = {
    texts,
    words: [],
    lexical: [],
    dense: undefined,
    vector: undefined,
    clauses: [],
    settings: {
      denseWeight: 0,
      nameWeight: 0,
      parameters: weights.parameters ?? 0,
    },
    learning: { learnedStore: undefined, learnedVotes: () => undefined },
  };
  return rankings.map(
    (given, t) =>
      rankText([() => ({ name: 'given', add: given }), parameterStage], registrySnapshot(all), turn, t).score,
  );
}

// The scores with a parameter lift added, as the prompt's ranking adds it.
function liftParameters(fused: Float64Array, text: string, all: readonly ToolSchema[], weight: number): Float64Array {
  const lift = parameterLift(fused, text, registrySnapshot(all).get(parameterWords(englishLoaded.stem)), weight);
  return lift ? applyContribution(fused, { name: 'parameters', add: lift }) : fused;
}

describe('sharePicks', () => {
  const score = Float64Array.of(0, 0, 0.8, 0, 0.9, 0, 0, 0.5, 0, 0.1);

  it('a required tool replaces the lowest-scored pick; the count stays the same', () => {
    expect(sharePicks([4, 2, 7], [9], score)).toEqual([4, 2, 9]);
    expect(sharePicks([4, 2, 7], [9, 0], score)).toEqual([4, 0, 9]);
  });

  it('required tools already picked, repeated or beyond k change nothing more', () => {
    expect(sharePicks([4, 2, 7], [2, 2, 4], score)).toEqual([4, 2, 7]);
    expect(sharePicks([4, 2], [9, 0, 1], score)).toEqual([0, 9]);
    expect(sharePicks([], [9], score)).toEqual([]);
  });
});

describe('itemBests', () => {
  it("each ranking's best tool, skipping rankings with nothing positive", () => {
    expect(
      itemBests([
        { fused: Float64Array.of(0.1, 0.7, 0.2) },
        { fused: Float64Array.of(0, 0, 0) },
        { fused: Float64Array.of(0.3, 0, 0) },
      ]),
    ).toEqual([1, 0]);
  });
});

describe('intentClauses', () => {
  it('an enumerated prompt gives its items when sharing is on, its clauses otherwise', () => {
    const prompt = 'First, book a hotel in Rome for two nights. Then convert 5 USD to EUR.';
    expect(intentClauses(prompt, { share: true })).toEqual({
      clauses: ['book a hotel in Rome for two nights', 'convert 5 USD to EUR.'],
      enumerated: true,
    });
    expect(intentClauses(prompt, { share: false }).enumerated).toBe(false);
    expect(intentClauses('weather in Oslo', { share: true })).toEqual({
      clauses: ['weather in Oslo'],
      enumerated: false,
    });
  });
});

describe('liftParameters', () => {
  const hotel = (name: string, ...params: string[]) => ({
    name,
    description: '',
    parameters: { type: 'object' as const, properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
  });
  // Every hotel tool takes a location; only the search takes smoking_allowed.
  const all = [
    hotel('book_hotel', 'location', 'check_in', 'nights'),
    hotel('reserve_hotel', 'location', 'check_in', 'guests'),
    hotel('search_hotel', 'location', 'smoking_allowed'),
    hotel('hotel_reviews', 'location'),
  ];
  const ranked = () => Float64Array.of(1, 0.98, 0.96, 0.9);

  it('parameter names as stemmed name words, once per registry list', () => {
    const words = (list: readonly ToolSchema[]) => registrySnapshot(list).get(parameterWords(englishLoaded.stem));
    expect(words(all)[2]).toEqual([['location'], ['smok', 'allow']]);
    expect(words(all)).toBe(words(all));
    expect(words([{ name: 'ping', description: '', parameters: { type: 'object' } }])).toEqual([[]]);
  });

  it('a tool gains weight × the share of its parameters the text names', () => {
    const fused = liftParameters(ranked(), 'A hotel in Paris that allows smoking', all, 0.1);
    // search_hotel: one of two parameters named (smok, allow), +0.05; no other tool moves.
    expect([...fused].map((v) => +v.toFixed(6))).toEqual([1, 0.98, 1.01, 0.9]);
  });

  it('a word most of the best tools take tells none apart; the divisor is at least 2', () => {
    const fused = liftParameters(ranked(), 'hotels by location', all, 0.1);
    expect([...fused]).toEqual([...ranked()]);
    // With location on one tool of the four, it counts: b has one parameter, but gains half the
    // weight, as a two-parameter tool naming one would.
    const few = [
      hotel('book_hotel', 'nights'),
      hotel('reserve_hotel', 'guests'),
      hotel('a', 'x'),
      hotel('b', 'location'),
    ];
    const lifted = liftParameters(ranked(), 'hotels by location', few, 0.1);
    expect([...lifted].map((v) => +v.toFixed(6))).toEqual([1, 0.98, 0.96, 0.95]);
  });

  it('only tools with a positive score are lifted; weight 0 changes nothing', () => {
    const fused = liftParameters(Float64Array.of(1, 0.98, 0, 0.9), 'A hotel in Paris that allows smoking', all, 0.1);
    expect([...fused]).toEqual([1, 0.98, 0, 0.9]);
    const off = liftParameters(ranked(), 'A hotel in Paris that allows smoking', all, 0);
    expect([...off]).toEqual([...ranked()]);
  });

  it('liftRankings lifts the whole prompt by its parameters, not its clauses', () => {
    const [whole = ranked(), clause = ranked()] = liftRankings(
      [ranked(), ranked()],
      ['A hotel in Paris that allows smoking', 'allows smoking'],
      all,
      {
        parameters: 0.1,
      },
    );
    expect((whole[2] as number) - 0.96).toBeCloseTo(0.05);
    expect([...clause]).toEqual([...ranked()]);
  });
});
