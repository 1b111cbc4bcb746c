/**
 * The hybrid's blend as three stages: the lexical half, the dense half and the share of a
 * tool's name the text holds. Each half is scaled to 0..1 per text (BM25 by its best score,
 * cosine min–max over the registry) and weighted by `denseWeight`.
 */
import { minMax } from '../rank/min-max.js';
import { type Derivation, derivationPer } from '../registry/registry-snapshot.js';
import { stem } from '../text/stem.js';
import { nameTokens } from '../text/words.js';
import { type Bm25Index, buildBm25 } from './bm25.js';
import { bm25Document } from './lexical-index.js';
import type { LexicalEvidence, RankTurn, Stage } from './rank-stages.js';

/** The hybrid's lexical index of a registry: BM25 over stemmed documents. */
export interface HybridLexicon {
  readonly index: Bm25Index;
  /** Tool `i`'s BM25 document words (stemmed), as a set: what a prompt matched. */
  document(i: number): ReadonlySet<string>;
}

type Stem = (word: string) => string;

/**
 * Each tool's BM25 document words, stemmed, in order (what the hybrid lexicon indexes; shipped in
 * a vectors file).
 *
 * @example
 * registrySnapshot(all).get(stemmedDocuments(stem))[0] // ['get', 'weather', 'current', …]
 */
export const stemmedDocuments = derivationPer(
  (stems: Stem): Derivation<readonly string[][]> =>
    ({ tools }) =>
      tools.map((tool) => bm25Document(tool).map(stems)),
);

const lexicons = new WeakMap<Stem, Map<string, Derivation<HybridLexicon>>>();

/**
 * The hybrid lexicon for these BM25 parameters and stemmer (one derivation per triple, so
 * hybrids that share them share the index).
 *
 * @example
 * const { index } = registrySnapshot(all).get(hybridLexicon(0.9, 0.4))
 */
export function hybridLexicon(k1: number, b: number, stems: Stem = stem): Derivation<HybridLexicon> {
  const key = `${k1} ${b}`;
  let byParameters = lexicons.get(stems);
  if (!byParameters) {
    byParameters = new Map();
    lexicons.set(stems, byParameters);
  }
  let derive = byParameters.get(key);
  if (!derive) {
    derive = (snapshot) => {
      const documents = snapshot.get(stemmedDocuments(stems));
      // A tool's word set is built when a selection reports its matches, not for every tool.
      const sets: (ReadonlySet<string> | undefined)[] = [];
      return {
        index: buildBm25(documents, { k1, b }),
        document: (i) => {
          let set = sets[i];
          if (!set) {
            set = new Set(documents[i] ?? []);
            sets[i] = set;
          }
          return set;
        },
      };
    };
    byParameters.set(key, derive);
  }
  return derive;
}

/**
 * One text's BM25 evidence: the lexical half is scaled by max(best score, `floor` × the query's
 * reference score), so a weak best match counts for less than a strong one.
 *
 * @example
 * lexicalEvidence(lexicon.index, ['weather', 'oslo'], 0) // { scores, max, scale }
 */
export function lexicalEvidence(index: Bm25Index, words: readonly string[], floor: number): LexicalEvidence {
  const scores = index.score(words);
  let max = 0;
  for (let i = 0; i < scores.length; i++) if ((scores[i] as number) > max) max = scores[i] as number;
  return { scores, max, scale: Math.max(max, floor * index.reference(words)) };
}

// The dense half's share of a text's blend: all of it when nothing matched lexically, none
// when the dense half is down.
function denseShare(turn: RankTurn, text: number): number {
  if (!turn.dense) return 0;
  return (turn.lexical[text] as LexicalEvidence).max > 0 ? turn.settings.denseWeight : 1;
}

/**
 * The lexical half: `(1 − dense share) × BM25 ÷ scale`; reports the unweighted 0..1 part.
 *
 * @example
 * rankText([lexicalStage], snapshot, turn, 0)
 */
export const lexicalStage: Stage = ({ turn, text }) => {
  const { scores, max, scale } = turn.lexical[text] as LexicalEvidence;
  const weight = denseShare(turn, text);
  const part = (i: number) => (max > 0 ? (scores[i] as number) / scale : 0);
  const add = new Float64Array(scores.length);
  for (let i = 0; i < add.length; i++) add[i] = (1 - weight) * part(i);
  return { name: 'lexical', add, part };
};

/**
 * The dense half: the dense share × cosine min–max over the registry; reports the raw cosine.
 * None when the embedding could not rank.
 *
 * @example
 * rankText([lexicalStage, denseStage], snapshot, turn, 0)
 */
export const denseStage: Stage = ({ turn, text }) => {
  const cosines = turn.dense?.[text];
  if (!cosines) return undefined;
  const weight = denseShare(turn, text);
  const [low, high] = minMax(cosines);
  const span = high - low || 1;
  const prompt = turn.dense?.[0] as Float32Array;
  const add = new Float64Array(cosines.length);
  for (let i = 0; i < add.length; i++) add[i] = weight * (((cosines[i] as number) - low) / span);
  return { name: 'dense', add, part: (i) => prompt[i] as number };
};

/**
 * Each tool's distinct name words (stemmed): what the name stage compares.
 *
 * @example
 * registrySnapshot([{ name: 'get_weather', description: '', parameters: {} }]).get(nameStems(stem))[0] // ['get', 'weather']
 */
export const nameStems = derivationPer(
  (stems: Stem): Derivation<readonly (readonly string[])[]> =>
    ({ tools }) =>
      tools.map((tool) => [...new Set(nameTokens(tool.name).map(stems))]),
);

/**
 * `nameWeight` × the share of a tool's name words the text holds, so a prompt that names a
 * tool outright ranks it above near-namesakes.
 *
 * @example
 * rankText([lexicalStage, denseStage, nameStage], snapshot, turn, 0)
 */
export const nameStage: Stage = ({ snapshot, turn, text }) => {
  const present = new Set(turn.words[text]);
  const weight = turn.settings.nameWeight;
  const stems = turn.stem ?? stem;
  const names = snapshot.get(nameStems(stems));
  const add = new Float64Array(names.length);
  // Only tools whose names hold one of the text's words can score: they are found through the
  // name words' postings rather than by visiting every tool (a tool no word reaches scores
  // weight × 0, which `add` already holds).
  const postings = snapshot.get(namePostings(stems));
  const reached = new Set<number>();
  for (const word of present) for (const i of postings.get(word) ?? []) reached.add(i);
  for (const i of reached) add[i] = weight * nameCoverage(names[i] as readonly string[], present);
  return { name: 'name', add };
};

// Each name word's tools, in registry order, for the name stage.
const namePostings = derivationPer(
  (stems: Stem): Derivation<ReadonlyMap<string, readonly number[]>> =>
    (snapshot) => {
      const postings = new Map<string, number[]>();
      snapshot.get(nameStems(stems)).forEach((words, i) => {
        for (const word of words) {
          const list = postings.get(word);
          if (list) list.push(i);
          else postings.set(word, [i]);
        }
      });
      return postings;
    },
);

// Share of a tool's name words the query holds: "calculate the present value" names
// calculate_present_value outright, while finance.calculate_future_value shares half its name.
// A one-word name counts as two words: one common word is weak evidence of naming a tool.
function nameCoverage(names: readonly string[], present: ReadonlySet<string>): number {
  if (names.length === 0) return 0;
  let hits = 0;
  for (const word of names) if (present.has(word)) hits++;
  return hits / Math.max(names.length, 2);
}
