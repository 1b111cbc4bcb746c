/**
 * Ranking as a list of stages: each stage reads the registry snapshot, the turn and the score
 * so far, and returns its named contribution; the score is the contributions applied in order.
 * A stage changes nothing it is handed, so one can be added, removed, reordered or run alone.
 */
import type { LearnedStore } from '../learn/learned-store.js';
import type { RegistrySnapshot } from '../registry/registry-snapshot.js';
import type { ToolSchema } from '../registry/schema.js';
import type { LoadedLexicon } from '../text/lexicon.js';

/**
 * What one stage adds to a ranking, under its name: a vector added to the score so far, or a
 * share of the way from the score so far toward another vector, `(1 − share) × score + share ×
 * toward`. `part` is what `ToolReason.parts` reports under the name (nothing when undefined).
 */
export interface Contribution {
  readonly name: string;
  readonly add?: ArrayLike<number>;
  readonly toward?: { readonly share: number; readonly scores: ArrayLike<number> };
  readonly part?: (tool: number) => number | undefined;
}

/** One text's BM25 evidence: its scores, their best, and what the lexical half is scaled by. */
export interface LexicalEvidence {
  readonly scores: Float64Array;
  readonly max: number;
  readonly scale: number;
}

/** The weights the hybrid's stages read (its options, resolved). */
export interface RankSettings {
  readonly denseWeight: number;
  readonly nameWeight: number;
  /** Multi-intent weights (0 where off). */
  readonly parameters: number;
}

/** One turn as the stages see it: the texts ranked and what the two halves measured for each. */
export interface RankTurn {
  /** The lexicon the prompt was read with, when multi-intent ranking read it (default English). */
  readonly lexicon?: LoadedLexicon | undefined;
  /** The stemmer of the selector's lexicon (default English). */
  readonly stem?: ((word: string) => string) | undefined;
  /** The prompt (0), then its clauses, as ranked (shorthand spelled out). */
  readonly texts: readonly string[];
  /** Each text's lexical query words. */
  readonly words: readonly (readonly string[])[];
  readonly lexical: readonly LexicalEvidence[];
  /** Each text's cosines, when the dense half ranked. */
  readonly dense: readonly Float32Array[] | undefined;
  /** The prompt's query vector, when the dense half ranked. */
  readonly vector: Float32Array | undefined;
  /** Each clause's final ranking (empty while the clauses themselves are ranked). */
  readonly clauses: readonly Float64Array[];
  readonly settings: RankSettings;
  /** The dense half's learned examples. */
  readonly learning: {
    readonly learnedStore: LearnedStore | undefined;
    learnedVotes(vector: Float32Array, all: readonly ToolSchema[]): Float64Array | undefined;
  };
}

/** What a stage is handed: `scores` is the score so far, for `text` (0: the prompt); never write it. */
export interface StageInput {
  readonly snapshot: RegistrySnapshot;
  readonly turn: RankTurn;
  readonly text: number;
  readonly scores: Float64Array;
}

/** A ranking stage: its contribution for this text, or undefined when it has none. */
export type Stage = (input: StageInput) => Contribution | undefined;

/** A text's score and the contributions it was made of, in stage order. */
export interface Ranked {
  readonly score: Float64Array;
  readonly contributions: readonly Contribution[];
}

/**
 * The score after one contribution, as a new vector.
 *
 * @example
 * applyContribution(Float64Array.of(1, 0), { name: 'clause', toward: { share: 0.2, scores: [0, 1] } }) // [0.8, 0.2]
 */
export function applyContribution(scores: Float64Array, contribution: Contribution): Float64Array {
  const next = scores.slice();
  const { add, toward } = contribution;
  if (add) for (let i = 0; i < next.length; i++) next[i] = (next[i] as number) + (add[i] as number);
  if (toward) {
    const { share, scores: target } = toward;
    for (let i = 0; i < next.length; i++) next[i] = (1 - share) * (next[i] as number) + share * (target[i] as number);
  }
  return next;
}

/**
 * The score of `count` tools made of these contributions, applied in order from zero.
 *
 * @example
 * combine(2, ranked.contributions.filter((part) => part.name !== 'learned')) // the score without the votes
 */
export function combine(count: number, contributions: readonly Contribution[]): Float64Array {
  let scores: Float64Array = new Float64Array(count);
  for (const contribution of contributions) scores = applyContribution(scores, contribution);
  return scores;
}

/**
 * Run stages in order over one text of a turn: each sees the score the earlier ones made.
 *
 * @example
 * const { score, contributions } = rankText([lexicalStage, denseStage], snapshot, turn, 0)
 */
export function rankText(stages: readonly Stage[], snapshot: RegistrySnapshot, turn: RankTurn, text: number): Ranked {
  let scores: Float64Array = new Float64Array(snapshot.tools.length);
  const contributions: Contribution[] = [];
  for (const stage of stages) {
    const contribution = stage({ snapshot, turn, text, scores });
    if (!contribution) continue;
    contributions.push(contribution);
    scores = applyContribution(scores, contribution);
  }
  return { score: scores, contributions };
}

/**
 * A turn's ranking: each clause through `clause` stages first, then the prompt through
 * `prompt` stages, which may read the clauses' rankings.
 *
 * @example
 * const ranked = rankTurn({ prompt: PROMPT_STAGES, clause: CLAUSE_STAGES }, snapshot, turn)
 */
export function rankTurn(
  stages: { readonly prompt: readonly Stage[]; readonly clause: readonly Stage[] },
  snapshot: RegistrySnapshot,
  turn: RankTurn,
): Ranked & { readonly clauses: readonly Float64Array[] } {
  const clauses = turn.texts.slice(1).map((_, c) => rankText(stages.clause, snapshot, turn, c + 1).score);
  return { ...rankText(stages.prompt, snapshot, { ...turn, clauses }, 0), clauses };
}

/**
 * What `ToolReason.parts` reports for one tool: each contribution's part, in stage order.
 *
 * @example
 * partsOf(ranked.contributions, 3) // { lexical: 0.8, dense: 0.41 }
 */
export function partsOf(contributions: readonly Contribution[], tool: number): Record<string, number> {
  const parts: Record<string, number> = {};
  for (const { name, part } of contributions) {
    const value = part?.(tool);
    if (value !== undefined) parts[name] = value;
  }
  return parts;
}
