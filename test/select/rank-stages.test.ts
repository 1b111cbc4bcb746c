import { describe, expect, it } from 'vitest';
import { registrySnapshot } from '../../src/registry/registry-snapshot.js';
import type { ToolSchema } from '../../src/registry/schema.js';
import { denseStage, hybridLexicon, lexicalEvidence, lexicalStage, nameStage } from '../../src/select/blend-stages.js';
import { hybridStages, reportOrder } from '../../src/select/hybrid-ranking.js';
import * as intent from '../../src/select/multi-intent.js';
import { combine, partsOf, type RankTurn, rankText, rankTurn, type Stage } from '../../src/select/rank-stages.js';
import * as task from '../../src/select/whole-task.js';
import { stem } from '../../src/text/stem.js';
import { textTokens } from '../../src/text/words.js';

const tool = (name: string, description: string, ...params: string[]): ToolSchema => ({
  name,
  description,
  parameters: { type: 'object', properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])) },
});
const all = [
  tool('get_weather', 'Current weather for a city', 'city'),
  tool('send_email', 'Send an email to a recipient', 'to', 'body'),
  tool('search_hotels', 'Find hotels in a city', 'location', 'smoking_allowed'),
  tool('convert_currency', 'Convert an amount between currencies', 'amount', 'from', 'to'),
];
const snapshot = registrySnapshot(all);

// A turn as the hybrid builds it, with made-up cosines for the dense half.
function turnOf(texts: string[], dense: number[][] | undefined): RankTurn {
  const words = texts.map((text) => [...new Set(textTokens(text).map(stem))]);
  const { index } = snapshot.get(hybridLexicon(0.9, 0.4));
  return {
    texts,
    words,
    lexical: words.map((list) => lexicalEvidence(index, list, 0)),
    dense: dense?.map((scores) => Float32Array.from(scores)),
    vector: undefined,
    clauses: [],
    settings: { denseWeight: 0.7, nameWeight: 0.2, parameters: 0.1 },
    learning: { learnedStore: undefined, learnedVotes: () => undefined },
  };
}
const turn = turnOf(['what is the weather in Oslo'], [[0.8, 0.1, 0.4, 0.2]]);
const full = hybridStages(intent, task);

describe('the hybrid stage list', () => {
  it('names each stage in one place, multi-intent and whole-task stages only when loaded', () => {
    const names = (stages: readonly Stage[], on: RankTurn) =>
      rankText(stages, snapshot, on, 0).contributions.map(({ name }) => name);
    expect(names(full.prompt, turn)).toEqual(['lexical', 'dense', 'name', 'parameters']);
    expect(names(hybridStages(undefined, undefined).prompt, turn)).toEqual(['lexical', 'dense', 'name']);
    expect(hybridStages(intent, task).prompt).toHaveLength(7);
    expect(hybridStages(undefined, undefined).clause).toHaveLength(3);
  });

  it('the score is its contributions applied in order, and reasons report their parts', () => {
    const ranked = rankText(full.prompt, snapshot, turn, 0);
    expect([...combine(all.length, ranked.contributions)]).toEqual([...ranked.score]);
    const parts = partsOf(ranked.contributions, 0);
    expect(Object.keys(parts)).toEqual(['lexical', 'dense']);
    expect(parts.dense).toBeCloseTo(0.8);
    expect(parts.lexical).toBe(1);
  });

  it('a stage can be removed: the rest rank as they did, less its contribution', () => {
    const ranked = rankText(full.prompt, snapshot, turn, 0);
    const without = rankText(
      full.prompt.filter((stage) => stage !== nameStage),
      snapshot,
      turn,
      0,
    );
    expect(without.contributions.map(({ name }) => name)).not.toContain('name');
    const name = ranked.contributions.find((part) => part.name === 'name')?.add as ArrayLike<number>;
    // get_weather holds "weather" of its two name words: 0.2 × 1/2.
    expect(name[0]).toBeCloseTo(0.1);
    for (let i = 0; i < all.length; i++)
      expect(without.score[i]).toBeCloseTo((ranked.score[i] as number) - (name[i] as number), 12);
  });

  it('a stage can be measured alone', () => {
    const alone = rankText([lexicalStage], snapshot, turn, 0);
    const inFull = rankText(full.prompt, snapshot, turn, 0).contributions[0];
    // The lexical half weighted by 1 − denseWeight: the same alone as inside the whole list.
    expect([...alone.score]).toEqual([...((inFull?.add ?? []) as Float64Array)]);
    expect(alone.score[0]).toBeCloseTo(0.3);
    const dense = rankText([denseStage], snapshot, turn, 0);
    // Cosines 0.8 … 0.1 min–max scaled, times 0.7.
    expect([...dense.score].map((v) => +v.toFixed(6))).toEqual([0.7, 0, 0.3, 0.1]);
  });

  it('with the dense half down the dense stage has no contribution and the lexical half weighs all', () => {
    const lexicalOnly = turnOf(['what is the weather in Oslo'], undefined);
    const ranked = rankText(full.prompt, snapshot, lexicalOnly, 0);
    expect(ranked.contributions.map(({ name }) => name)).not.toContain('dense');
    expect(ranked.contributions[0]?.add?.[0]).toBe(1);
  });

  it('stages never write the score they are handed', () => {
    const scores = Float64Array.of(0.9, 0.5, 0.4, 0.1);
    const copy = Float64Array.from(scores);
    for (const stage of full.prompt) stage({ snapshot, turn, text: 0, scores });
    expect([...scores]).toEqual([...copy]);
  });

  it('clauses rank on their own; the prompt keeps its own ranking', () => {
    const two = turnOf(
      ['weather in Oslo and send an email to Kim', 'weather in Oslo', 'send an email to Kim'],
      [
        [0.5, 0.5, 0.2, 0.1],
        [0.8, 0.1, 0.3, 0.2],
        [0.1, 0.9, 0.1, 0.2],
      ],
    );
    const ranked = rankTurn(full, snapshot, two);
    expect(ranked.clauses).toHaveLength(2);
    const names = ranked.contributions.map(({ name }) => name);
    expect(names).toEqual(['lexical', 'dense', 'name', 'parameters']);
    // Each clause's best tool: the weather tool for the first, the email tool for the second.
    expect(intent.itemBests(ranked.clauses.map((fused) => ({ fused })))).toEqual([0, 1]);
    expect([...ranked.score]).toEqual([...rankText(full.prompt, snapshot, two, 0).score]);
  });

  it('reasons list lexical, dense, learned, paired first, then the rest in stage order', () => {
    const part = (name: string) => ({ name, part: () => 1 });
    const stages = ['lexical', 'dense', 'name', 'paired', 'learned', 'extra'].map(part);
    expect(Object.keys(partsOf(reportOrder(stages), 0))).toEqual([
      'lexical',
      'dense',
      'learned',
      'paired',
      'name',
      'extra',
    ]);
  });
});

describe('the name stage', () => {
  // It reaches tools through their name words' postings; every tool must still score what the
  // share of its name words the text holds says (one-word names count as two), and 0 elsewhere.
  it('scores every tool as the share of its name the text holds, weighted', () => {
    const named = [
      tool('get_weather', 'w'),
      tool('weather', 'one word'),
      tool('send_email', 'e'),
      tool('get_forecast_weather_now', 'three name words'),
      tool('_', 'no name words'),
    ];
    // Name words as nameStems reads them: get_weather's are ['weather'] ('get' says nothing).
    const on: RankTurn = { ...turnOf(['send the weather by email'], undefined), words: [['send', 'weather', 'email']] };
    const add = nameStage({ snapshot: registrySnapshot(named), turn: on, text: 0, scores: new Float64Array(5) })?.add;
    expect(Array.from(add ?? [])).toEqual([0.2 * (1 / 2), 0.2 * (1 / 2), 0.2 * (2 / 2), 0.2 * (1 / 3), 0]);
  });
});
