import { DEFAULT_PHRASES, DEFAULT_SYNONYMS, STOPWORDS } from './english-lexicon.js';
import type { Lexicon, PhrasePair, SynonymPair } from './lexicon.js';

export type { PhrasePair, SynonymPair };

export { DEFAULT_PHRASES, DEFAULT_SYNONYMS };

/**
 * Reject a pair that can never fire: a side under three characters, a stopword, more than
 * one word. The error names the pair and the reason.
 */
export function assertSynonymPair(pair: SynonymPair, stopwords: ReadonlySet<string> = STOPWORDS): void {
  if (!Array.isArray(pair) || pair.length !== 2) {
    throw new TypeError(`synonym pair ${JSON.stringify(pair)} must be [word, word]`);
  }
  for (const side of pair) {
    const problem = sideProblem(side, stopwords);
    if (problem) throw new Error(`synonym pair ["${pair[0]}", "${pair[1]}"] can never fire: "${side}" ${problem}`);
  }
}

/** Reject a phrase pair whose phrase is not two or more words or whose word can never fire. */
export function assertPhrasePair(pair: PhrasePair, stopwords: ReadonlySet<string> = STOPWORDS): void {
  const [phrase, word] = pair;
  const words = typeof phrase === 'string' ? phrase.trim().toLowerCase().split(/\s+/) : [];
  if (words.length < 2 || words.some((w) => !WORD.test(w))) {
    throw new Error(`phrase pair ["${phrase}", "${word}"]: the phrase must be two or more words`);
  }
  const problem = sideProblem(word, stopwords);
  if (problem) throw new Error(`phrase pair ["${phrase}", "${word}"] can never fire: "${word}" ${problem}`);
}

// One word: letters and digits only (so no space either).
const WORD = /^[\p{L}\p{N}]+$/u;

function sideProblem(side: unknown, stopwords: ReadonlySet<string>): string | undefined {
  if (typeof side !== 'string') return 'is not a string';
  if (side !== side.toLowerCase()) return 'is not lowercase';
  if (!WORD.test(side)) return 'is not a single word';
  if (side.length < 3) return 'is shorter than three characters';
  if (stopwords.has(side)) return 'is a stopword';
  return undefined;
}

/** A compiled, query-side expansion table. */
export interface SynonymTable {
  readonly words: ReadonlyMap<string, readonly string[]>;
  readonly phrases: readonly { readonly pattern: RegExp; readonly phrase: string; readonly word: string }[];
}

/**
 * Compile pairs into a lookup: each side maps to the other (bidirectional), phrases to
 * word-boundary patterns.
 *
 * @example
 * const table = compileSynonyms([['lint', 'check']], [['look up', 'search']])
 * expandQuery(['lint'], 'lint it', table) // ['lint', 'check']
 */
export function compileSynonyms(
  pairs: readonly SynonymPair[],
  phrases: readonly PhrasePair[] = [],
  stopwords: ReadonlySet<string> = STOPWORDS,
): SynonymTable {
  const words = new Map<string, string[]>();
  const link = (from: string, to: string) => {
    const list = words.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    words.set(from, list);
  };
  for (const pair of pairs) {
    assertSynonymPair(pair, stopwords);
    link(pair[0], pair[1]);
    link(pair[1], pair[0]);
  }
  const compiled = phrases.map((pair) => {
    assertPhrasePair(pair, stopwords);
    const parts = pair[0].trim().toLowerCase().split(/\s+/);
    // Each word is letters and digits only (`assertPhrasePair`), so nothing in it needs escaping.
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${parts.join('\\s+')}(?![\\p{L}\\p{N}])`, 'iu');
    return { pattern, phrase: parts.join(' '), word: pair[1] };
  });
  return { words, phrases: compiled };
}

/**
 * The query-side table of a lexicon (English when none is given) with extra pairs, or the extra
 * pairs alone with `noDefaults`.
 *
 * @example
 * const table = lexiconSynonyms(undefined, [['lint', 'check']], [])
 */
export function lexiconSynonyms(
  lexicon: Lexicon | undefined,
  pairs: readonly SynonymPair[],
  phrases: readonly PhrasePair[],
  noDefaults?: boolean,
): SynonymTable {
  return compileSynonyms(
    noDefaults ? pairs : [...(lexicon?.synonyms ?? DEFAULT_SYNONYMS), ...pairs],
    noDefaults ? phrases : [...(lexicon?.phrases ?? DEFAULT_PHRASES), ...phrases],
    lexicon?.stopwords,
  );
}

/**
 * Expand query tokens with the table: synonyms of each token, plus words of phrases found in
 * the raw query text. Returns the original tokens first, then additions, without duplicates.
 */
export function expandQuery(tokens: readonly string[], rawQuery: string, table: SynonymTable): string[] {
  const out = new Set(tokens);
  for (const token of tokens) for (const other of table.words.get(token) ?? []) out.add(other);
  for (const { pattern, word } of table.phrases) if (pattern.test(rawQuery)) out.add(word);
  return [...out];
}
