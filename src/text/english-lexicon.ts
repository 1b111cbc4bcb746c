/**
 * English, the default lexicon: the part tokenising and query expansion read on every turn
 * (stopwords, the stemmer, the synonym table), in the core bundle. Its rule tables (verbs,
 * sequencing words, handle words, shorthand) are in `english-rules.ts`, loaded with the rules.
 */
import type { Lexicon } from './lexicon.js';
import { stem } from './stem.js';
import type { PhrasePair, SynonymPair } from './synonyms.js';

/** Words that carry no selection signal; a prompt's "the" must not select every tool. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'the and for with that this from into onto over under then than them they their there these those ' +
    'what which when where while who whom whose why how are was were been being have has had having ' +
    'does did doing done can could should would will shall may might must not nor but yet all any ' +
    'both each few more most other some such only own same too very just also about above after again ' +
    "against before below between down during off once out through until upon via per its it's " +
    'you your yours our ours ourselves his her hers him she himself herself myself yourself themselves ' +
    'let lets please want need like get got use using used make made one two given returns return ' +
    'specified specific provided based want wants able'
  ).split(/\s+/),
);

/**
 * The curated default table: the common drift between how people ask and how tools are
 * described. "Check" reaches "verify" and "search"; "open", "show" and "view" reach "read";
 * "fix" and "change" reach "edit".
 */
export const DEFAULT_SYNONYMS: readonly SynonymPair[] = [
  ['check', 'verify'],
  ['check', 'search'],
  ['open', 'read'],
  ['show', 'read'],
  ['view', 'read'],
  ['fix', 'edit'],
  ['change', 'edit'],
  ['modify', 'edit'],
  ['find', 'search'],
  ['locate', 'search'],
  ['delete', 'remove'],
  ['create', 'add'],
  ['send', 'post'],
];

/** Phrase pairs of the default table, matched on word boundaries ("look upon" never fires). */
export const DEFAULT_PHRASES: readonly PhrasePair[] = [
  ['look up', 'search'],
  ['look for', 'search'],
  ['find out', 'search'],
  ['set up', 'configure'],
  ['sign in', 'login'],
  ['log in', 'login'],
];

/**
 * The English lexicon, every selector's default `lexicon`.
 *
 * @example
 * new KeywordSelector({ lexicon: english }) // the same as new KeywordSelector()
 */
export const english: Lexicon = {
  language: 'english',
  stopwords: STOPWORDS,
  stem,
  synonyms: DEFAULT_SYNONYMS,
  phrases: DEFAULT_PHRASES,
  rules: () => import('./english-rules.js').then((module) => module.englishRules),
};
