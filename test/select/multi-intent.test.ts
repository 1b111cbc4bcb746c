import { describe, expect, it } from 'vitest';
import { registrySnapshot } from '../../src/registry/registry-snapshot.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import {
  actionStage,
  clauseBest,
  intentClauses,
  itemBests,
  nameNouns,
  parameterLift,
  parameterStage,
  parameterWords,
  requestBests,
  sharePicks,
} from '../../src/select/multi-intent.js';
import { applyContribution, type RankTurn, rankText } from '../../src/select/rank-stages.js';
import { englishLoaded } from '../../src/text/english.js';

// Each ranking (the prompt's first, then its clauses') through the parameter and action stages,
// starting from the given scores.
function resolveActions(
  rankings: readonly Float64Array[],
  texts: readonly string[],
  all: readonly ToolSchema[],
  weights: { action?: number; parameters?: number },
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
      mix: 0,
      action: weights.action ?? 0,
      parameters: weights.parameters ?? 0,
    },
    learning: { learnedStore: undefined, learnedVotes: () => undefined },
  };
  return rankings.map(
    (given, t) =>
      rankText([() => ({ name: 'given', add: given }), parameterStage, actionStage], registrySnapshot(all), turn, t)
        .score,
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

describe('itemBests and mixClauses', () => {
  it("each ranking's best tool, skipping rankings with nothing positive", () => {
    expect(
      itemBests([
        { fused: Float64Array.of(0.1, 0.7, 0.2) },
        { fused: Float64Array.of(0, 0, 0) },
        { fused: Float64Array.of(0.3, 0, 0) },
      ]),
    ).toEqual([1, 0]);
  });

  it('requestBests drops the slot of a statement that a writing request carries', () => {
    const rankings = [{ fused: Float64Array.of(0.9, 0.1, 0) }, { fused: Float64Array.of(0, 0.2, 0.8) }];
    expect(requestBests(rankings, ['reply to Carla', 'we accept clauses 3 and 4'])).toEqual([0]);
    expect(requestBests(rankings, ['Post in #ops', 'the deploy is done'])).toEqual([0]);
    expect(requestBests(rankings, ['reply to Carla', 'and what is the weather'])).toEqual([0, 2]);
  });

  it('requestBests keeps a statement beside requests that write nothing', () => {
    const rankings = [{ fused: Float64Array.of(0.9, 0.1, 0) }, { fused: Float64Array.of(0, 0.2, 0.8) }];
    // "I'm a Pisces" is what the horoscope lookup needs, not a message's content.
    expect(requestBests(rankings, ["I'm a Pisces", 'I would like to know my week'])).toEqual([0, 2]);
    expect(requestBests(rankings, ['find the Q3 report', 'it is quite long'])).toEqual([0, 2]);
  });

  it('mixes the best clause score into the whole prompt score', () => {
    const best = clauseBest([Float64Array.of(0, 1, 0.25), Float64Array.of(0.5, 0, 0)], 3);
    const whole = applyContribution(Float64Array.of(1, 0, 0.5), {
      name: 'clause',
      toward: { share: 0.2, scores: best },
    });
    expect([...best]).toEqual([0.5, 1, 0.25]);
    expect([...whole].map((v) => +v.toFixed(6))).toEqual([0.9, 0.2, 0.45]);
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

describe('resolveActions', () => {
  // Twelve ticket tools; assign_ticket is ranked eighth of the whole prompt.
  const names = [
    'get_ticket',
    'update_ticket',
    'list_tickets',
    'search_tickets',
    'close_ticket',
    'comment_on_ticket',
    'tag_ticket',
    'assign_ticket',
    'merge_tickets',
    'export_tickets',
    'watch_ticket',
    'link_tickets',
  ];
  const all = names.map((name) => ({ name, description: '', parameters: { type: 'object' as const } }));
  const ranked = () => Float64Array.from(names, (_, i) => 1 - i * 0.02);

  it("a one-clause prompt's own ranking is resolved among its best 10", () => {
    const [whole = ranked()] = resolveActions([ranked()], ['Give the SSO ticket to Maria'], all, { action: 0.3 });
    const order = [...whole.keys()].sort((a, b) => (whole[b] as number) - (whole[a] as number));
    // From eighth (0.86) to first (1.16); only it moved.
    expect(names[order[0] as number]).toBe('assign_ticket');
    expect(whole.filter((v, i) => v !== ranked()[i]).length).toBe(1);
  });

  it('a multi-clause prompt resolves its clauses among their best 5, not the whole prompt', () => {
    const [whole = ranked(), clause = ranked()] = resolveActions(
      [ranked(), ranked()],
      ['x', 'hand the ticket to Maria'],
      all,
      { action: 0.1 },
    );
    expect([...whole]).toEqual([...ranked()]);
    // assign_ticket is eighth in the clause too: beyond its best 5, so nothing moves.
    expect([...clause]).toEqual([...ranked()]);
    const [, first = ranked()] = resolveActions([ranked(), ranked()], ['x', 'close the ticket'], all, { action: 0.1 });
    expect((first[4] as number) - (ranked()[4] as number)).toBeCloseTo(0.1);
  });

  it('a one-clause prompt lifts only tools that share a name word with a best tool lacking the action', () => {
    // find_agency and search_flights do the asked action (search) but share no name word with
    // a best tool that does not; get_flight_status does not search, so search_flights is
    // told apart from it by the action and gains; find_agency does not.
    const tools = ['trip_planner', 'find_agency', 'get_flight_status', 'search_flights', 'hotel_rates'];
    const list = tools.map((name) => ({ name, description: '', parameters: { type: 'object' as const } }));
    const [whole = ranked()] = resolveActions(
      [Float64Array.of(1, 0.95, 0.9, 0.85, 0.8)],
      ['Find me a flight to Tokyo'],
      list,
      {
        action: 0.2,
      },
    );
    expect([...whole].map((v) => +v.toFixed(6))).toEqual([1, 0.95, 0.9, 1.05, 0.8]);
    // Without the one that lacks the action, no name word repeats and nothing moves.
    const [alone = ranked()] = resolveActions(
      [Float64Array.of(1, 0.95, 0, 0.85, 0.8)],
      ['Find me a flight to Tokyo'],
      list,
      {
        action: 0.2,
      },
    );
    expect([...alone]).toEqual([1, 0.95, 0, 0.85, 0.8]);
  });

  it('weight 0 or a prompt with no action changes nothing', () => {
    const [off = ranked()] = resolveActions([ranked()], ['Give the SSO ticket to Maria'], all, { action: 0 });
    const [whole = ranked()] = resolveActions([off], ['the SSO ticket for Maria'], all, { action: 0.1 });
    expect([...whole]).toEqual([...ranked()]);
  });
});

describe('nameNounsOf', () => {
  it("a tool's name words, stemmed, without stopwords or short words, and nothing for a bad name", () => {
    const tools = [
      { name: 'get_ticket', description: '' },
      { name: 'searchOpenTickets', description: '' },
      { name: 42 as unknown as string, description: '' },
    ].map((tool) => ({ ...tool, parameters: { type: 'object' as const } }));
    const nouns = registrySnapshot(tools).get(nameNouns(englishLoaded.stem));
    expect([...(nouns[0] ?? [])]).toEqual(['ticket']);
    expect(nouns[1]?.has('ticket')).toBe(true);
    expect(nouns[2]?.size).toBe(0);
    expect(registrySnapshot(tools).get(nameNouns(englishLoaded.stem))).toBe(nouns);
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

  it('resolveActions lifts the whole prompt by its parameters, not its clauses', () => {
    const [whole = ranked(), clause = ranked()] = resolveActions(
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
