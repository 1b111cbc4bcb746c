/**
 * English, the default lexicon: the tables tokenising and query expansion read on every turn
 * (stopwords, the synonym table), in the core bundle, where a selector given no `lexicon` reads
 * them. The rule tables (verbs, sequencing words, handle words, shorthand) are in
 * `english-rules.ts`, and the `english` value that joins both with the stemmer in `english.ts`:
 * both load with the rules that read them.
 */
import type { PhrasePair, SynonymPair } from './lexicon.js';

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
    'specified specific provided based wants able'
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
