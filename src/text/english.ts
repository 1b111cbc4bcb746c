/**
 * English, the default lexicon, as one value: its core tables (`english-lexicon.ts`), the
 * stemmer and its rule tables (`english-rules.ts`). A selector given no `lexicon` reads English;
 * rules that read a lexicon synchronously (`splitClauses`, `handleInputs`…)
 * default to `englishLoaded`. Modules that import this file load with those rules, never with
 * the core.
 */
import { DEFAULT_PHRASES, DEFAULT_SYNONYMS, STOPWORDS } from './english-lexicon.js';
import { englishRules } from './english-rules.js';
import type { Lexicon, LoadedLexicon } from './lexicon.js';
import { stem } from './stem.js';

/**
 * The English lexicon: what every selector reads when given no `lexicon`.
 *
 * @example
 * new HybridSelector(embedder, { lexicon: english }) // the same as without the option
 */
export const english: Lexicon = {
  language: 'english',
  stopwords: STOPWORDS,
  stem,
  synonyms: DEFAULT_SYNONYMS,
  phrases: DEFAULT_PHRASES,
  rules: englishRules,
};

/**
 * English with its rule tables in place: what `loadLexicon(english)` resolves to, ready at import.
 *
 * @example
 * splitClauses('book the flight; then reserve a hotel', {}, englishLoaded) // ['book the flight', 'reserve a hotel']
 */
export const englishLoaded: LoadedLexicon = {
  language: english.language,
  stopwords: STOPWORDS,
  stem,
  synonyms: DEFAULT_SYNONYMS,
  phrases: DEFAULT_PHRASES,
  ...englishRules,
};
