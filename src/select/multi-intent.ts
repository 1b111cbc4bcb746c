/**
 * Multi-intent ranking for HybridSelector, loaded with the first selection that uses it: which
 * clauses of a prompt to rank (each clause's best tool keeps a slot), the `parameters` ranking
 * stage, and the slots an enumerated prompt's items keep.
 */
import { type Derivation, derivationPer } from '../registry/registry-snapshot.js';
import type { ClauseOptions } from '../text/clauses.js';
import { splitClauses, splitEnumeration } from '../text/clauses.js';
import { english, englishLoaded } from '../text/english.js';
import { type Lexicon, type LoadedLexicon, promptRules } from '../text/lexicon.js';
import { spellOutShorthand } from '../text/shorthand.js';
import { nameTokens, textTokens } from '../text/words.js';
import type { Stage } from './rank-stages.js';
import { toolProperties } from './tool-properties.js';

export { spellOutShorthand };

type Stem = LoadedLexicon['stem'];

/** A prompt made ready for ranking: the texts to rank, and the lexicon they were read with. */
export interface PromptTexts {
  /** The whole prompt, then its clauses when it has two or more (shorthand spelled out). */
  readonly texts: readonly string[];
  readonly enumerated: boolean;
  readonly lexicon: LoadedLexicon;
  /** Why the lexical rules were skipped (the lexicon does not cover the prompt), if they were. */
  readonly warnings: readonly string[];
}

/**
 * The texts a multi-intent selection ranks: the whole prompt and its clauses (see
 * {@link intentClauses}), each with its shorthand spelled out unless `shorthand: false`. A prompt
 * mostly in a script the lexicon does not cover is ranked whole and as written, with a warning.
 *
 * @example
 * const { texts } = await promptTexts('Ack ALR-7710 and page the on-call', { share: true }, english)
 * // ['Ack (acknowledge) ALR-7710 and page the on-call', 'Ack (acknowledge) ALR-7710', 'page the on-call']
 */
export async function promptTexts(
  prompt: string,
  options: ClauseOptions & { share?: boolean; shorthand?: boolean },
  lexicon: Lexicon = english,
): Promise<PromptTexts> {
  const rules = await promptRules(lexicon, prompt);
  if (rules.skipped) return { texts: [prompt], enumerated: false, lexicon: rules.lexicon, warnings: [rules.skipped] };
  const { clauses, enumerated } = intentClauses(prompt, options, rules.lexicon);
  const asked = clauses.length > 1 ? [prompt, ...clauses] : [prompt];
  const texts = options.shorthand !== false ? asked.map((text) => spellOutShorthand(text, rules.lexicon)) : asked;
  return { texts, enumerated, lexicon: rules.lexicon, warnings: [] };
}

/** A ranking of the registry (one score per tool, registry order). */
export interface ClauseRanking {
  readonly fused: Float64Array;
}

/**
 * The clauses to rank besides the whole prompt: an enumerated prompt's items when `share` is on
 * and the prompt is one (`enumerated`), else its clauses; fewer than two means none.
 *
 * @example
 * intentClauses('First, book a hotel in Rome. Then convert 5 USD to EUR.', { share: true })
 * // { clauses: ['book a hotel in Rome', 'convert 5 USD to EUR.'], enumerated: true }
 */
export function intentClauses(
  prompt: string,
  options: ClauseOptions & { share?: boolean },
  lexicon: LoadedLexicon = englishLoaded,
): { clauses: string[]; enumerated: boolean } {
  const items = options.share ? splitEnumeration(prompt, undefined, lexicon) : [];
  if (items.length > 1) return { clauses: items, enumerated: true };
  return { clauses: splitClauses(prompt, options, lexicon), enumerated: false };
}

/**
 * Each ranking's best tool, for the rankings whose best score is positive.
 *
 * @example
 * itemBests([{ fused: Float64Array.of(0.1, 0.7) }, { fused: Float64Array.of(0, 0) }]) // [1]
 */
export function itemBests(rankings: readonly ClauseRanking[]): number[] {
  const bests: number[] = [];
  for (const { fused } of rankings) {
    let best = -1;
    for (let i = 0; i < fused.length; i++)
      if ((fused[i] as number) > 0 && (best < 0 || (fused[i] as number) > (fused[best] as number))) best = i;
    if (best >= 0) bests.push(best);
  }
  return bests;
}

/**
 * Make room in a ranked pick for tools that must be advertised: each `required` index not
 * already picked replaces the lowest-scored pick that is not itself required, so the count
 * stays the same. Gives every item of an enumerated prompt its own best tool, which one
 * blended ranking of the whole prompt can push out of k.
 *
 * @example
 * sharePicks([4, 2, 7], [9], Float64Array.of(0, 0, 0.8, 0, 0.9, 0, 0, 0.5, 0, 0.1))
 * // [4, 2, 9]: 7 (0.5) was the lowest pick
 */
export function sharePicks(picked: readonly number[], required: readonly number[], score: ArrayLike<number>): number[] {
  const out = [...picked];
  const keep = new Set<number>();
  for (const index of required) {
    if (keep.size >= out.length) break;
    keep.add(index);
    if (out.includes(index)) continue;
    let lowest = -1;
    for (let i = 0; i < out.length; i++) {
      const candidate = out[i] as number;
      if (
        !keep.has(candidate) &&
        (lowest < 0 || (score[candidate] as number) < (score[out[lowest] as number] as number))
      )
        lowest = i;
    }
    if (lowest >= 0) out[lowest] = index;
  }
  return out;
}

// The best `top` indices with a positive score, best first (insertion into a short sorted list).
function bestPositive(fused: Float64Array, top: number): number[] {
  const order: number[] = [];
  for (let i = 0; i < fused.length; i++) {
    if (!((fused[i] as number) > 0)) continue;
    let at = order.length;
    while (at > 0 && (fused[order[at - 1] as number] as number) < (fused[i] as number)) at--;
    if (at < top) {
      order.splice(at, 0, i);
      if (order.length > top) order.pop();
    }
  }
  return order;
}

/**
 * Each tool's top-level parameter names, each as its stemmed name words: what
 * `parameterLift` looks for in the prompt.
 *
 * @example
 * registrySnapshot([{ name: 'search_hotel', description: '', parameters: { type: 'object',
 *   properties: { smoking_allowed: { type: 'boolean' } } } }]).get(parameterWords(englishLoaded.stem))[0] // [['smok', 'allow']]
 */
export const parameterWords = derivationPer(
  (stem: Stem): Derivation<readonly (readonly (readonly string[])[])[]> =>
    ({ tools }) =>
      tools.map((tool) =>
        Object.keys(toolProperties(tool) ?? {})
          .map((name) => nameTokens(name).map(stem))
          .filter((list) => list.length > 0),
      ),
);

// How many of the whole prompt's best tools compete for a parameter lift, and the share of them
// that may have a word among their parameters for it to tell them apart (fitted on the dev
// splits, docs/tuning-whole-task.md).
const PARAMETER_TOP = 20;
const PARAMETER_SHARE = 0.3;

/**
 * The lift of the best 20 tools with a positive score by the parameters a text names: each gains
 * `weight × named ÷ max(its parameter count, 2)`, where `named` counts its top-level parameters
 * with a name word (stemmed) in the text that at most 30% of those 20 tools have among their own
 * parameters. So "a hotel that allows smoking" lifts the search with `smoking_allowed` over the
 * hotel tools that all take `location`, which tells none of them apart. Undefined at weight 0.
 *
 * @example
 * parameterLift(scores, 'hotels in Paris that allow smoking', snapshot.get(parameterWords(englishLoaded.stem)), 0.1)
 */
export function parameterLift(
  scores: Float64Array,
  text: string,
  params: readonly (readonly (readonly string[])[])[],
  weight: number,
  lexicon: LoadedLexicon = englishLoaded,
): Float64Array | undefined {
  if (!(weight > 0)) return undefined;
  const present = new Set(textTokens(text, lexicon).map(lexicon.stem));
  const order = bestPositive(scores, PARAMETER_TOP);
  // In how many of the best tools each parameter word occurs: a common one tells none apart.
  const spread = new Map<string, number>();
  for (const i of order)
    for (const word of new Set((params[i] ?? []).flat())) spread.set(word, (spread.get(word) ?? 0) + 1);
  const limit = Math.max(1, Math.floor(order.length * PARAMETER_SHARE));
  const lift = new Float64Array(scores.length);
  for (const i of order) {
    const list = params[i] ?? [];
    let named = 0;
    for (const words of list) if (words.some((w) => present.has(w) && (spread.get(w) ?? 0) <= limit)) named++;
    lift[i] = weight * (named / Math.max(list.length, 2));
  }
  return lift;
}

/**
 * The parameter lift of the prompt (not its clauses; see {@link parameterLift}).
 *
 * @example
 * rankText([...blend, parameterStage], snapshot, turn, 0)
 */
export const parameterStage: Stage = ({ snapshot, turn, text, scores }) => {
  if (text !== 0) return undefined;
  const lexicon = turn.lexicon ?? englishLoaded;
  const lift = parameterLift(
    scores,
    turn.texts[0] ?? '',
    snapshot.get(parameterWords(lexicon.stem)),
    turn.settings.parameters,
    lexicon,
  );
  return lift ? { name: 'parameters', add: lift } : undefined;
};
