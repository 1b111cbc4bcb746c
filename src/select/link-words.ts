/**
 * The words tool links read, from the lexicon: which words make a parameter a handle, which
 * name words find or fetch, which words are never the entity a tool is about. Compiled once per
 * lexicon, with the small word helpers every part of the links shares.
 */
import { englishLoaded } from '../text/english.js';
import { type LoadedLexicon, tagged } from '../text/lexicon.js';
import { rawWords, splitName } from '../text/words.js';

/** A lexicon's link tables, as sets and patterns. */
export interface LinkWords {
  readonly lexicon: LoadedLexicon;
  readonly stem: (word: string) => string;
  readonly stopwords: ReadonlySet<string>;
  /** Words that make a parameter a handle (`id`, `ticker`). */
  readonly handles: ReadonlySet<string>;
  /** The bare handle words (`id`, `ids`). */
  readonly bare: ReadonlySet<string>;
  /** The first of them (`id`): a name word that says the tool deals in handles. */
  readonly id: string;
  /** The ending of a plural ("tasks"). */
  readonly plural: string;
  readonly handleOf: ReadonlySet<string>;
  /** Name words of tools that find what exists (stemmed). */
  readonly finders: ReadonlySet<string>;
  /** Name words of tools that fetch one thing (stemmed). */
  readonly fetchers: ReadonlySet<string>;
  /** Name words that are actions, never the entity: finders and fetchers (stemmed), the `name` verbs. */
  readonly actions: ReadonlySet<string>;
  readonly glue: ReadonlySet<string>;
  readonly generic: ReadonlySet<string>;
  /** Description words that say an input is a handle. */
  readonly handleText: RegExp;
  /** A description pointing at another tool by an identifier-like name: "returned by list_refs". */
  readonly pointer: RegExp;
}

const compiled = new WeakMap<LoadedLexicon, LinkWords>();

/**
 * The link tables of a lexicon (English by default), once per lexicon.
 *
 * @example
 * linkWords().handles.has('ticker') // true
 */
export function linkWords(lexicon: LoadedLexicon = englishLoaded): LinkWords {
  let words = compiled.get(lexicon);
  if (!words) {
    words = compile(lexicon);
    compiled.set(lexicon, words);
  }
  return words;
}

function compile(lexicon: LoadedLexicon): LinkWords {
  const { stem, verbs, pointers } = lexicon;
  const finders = new Set([...tagged(verbs, 'finds')].map(stem));
  const fetchers = new Set([...tagged(verbs, 'fetches')].map(stem));
  const alternatives = (words: Iterable<string>) => [...words].join('|');
  return {
    lexicon,
    stem,
    stopwords: lexicon.stopwords,
    handles: new Set(lexicon.handleWords),
    bare: new Set(lexicon.bareHandles),
    id: lexicon.bareHandles[0] ?? '',
    plural: lexicon.pluralSuffix,
    handleOf: new Set(lexicon.handleOf),
    finders,
    fetchers,
    actions: new Set([...finders, ...fetchers, ...tagged(verbs, 'name')]),
    glue: new Set(lexicon.glue),
    generic: new Set(lexicon.generic),
    handleText: new RegExp(`\\b(?:${alternatives(lexicon.handleText)})\\b`, 'i'),
    pointer: new RegExp(
      `\\b(?:${alternatives(tagged(pointers, 'tool'))})\\s+\`?(?:[a-z][a-z0-9]*(?:[_.][a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*)`,
    ),
  };
}

/** Most tokens read from one description (a huge description must not cost more). */
const MAX_DESCRIPTION_WORDS = 400;

/**
 * An identifier's raw words (`getUserTickets` → get, user, tickets).
 *
 * @example
 * identifierWords('search_tasks') // ['search', 'tasks']
 */
export function identifierWords(name: string): string[] {
  return splitName(name).flatMap((part) => rawWords(part));
}

/**
 * The first words of a description, bounded.
 *
 * @example
 * headWords('The ID of the task.') // ['the', 'id', 'of', 'the', 'task']
 */
export function headWords(text: unknown): string[] {
  if (typeof text !== 'string' || text === '') return [];
  const words = rawWords(text.length > 4000 ? text.slice(0, 4000) : text);
  return words.length > MAX_DESCRIPTION_WORDS ? words.slice(0, MAX_DESCRIPTION_WORDS) : words;
}

/**
 * Whether a word may be the entity a tool or a handle is about: not an action, a handle word,
 * a generic word, a stopword or a number.
 *
 * @example
 * isEntityWord('task', linkWords()) // true
 * isEntityWord('search', linkWords()) // false
 */
export function isEntityWord(word: string, words: LinkWords): boolean {
  return (
    word.length >= 3 &&
    !words.stopwords.has(word) &&
    !words.actions.has(word) &&
    !words.handles.has(word) &&
    !words.generic.has(word) &&
    !/^\d+$/.test(word)
  );
}

/**
 * `doc` and `document`, `task` and `tasks` are one entity.
 *
 * @example
 * sameEntity('doc', 'document') // true
 */
export function sameEntity(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.length - short.length >= 2 && long.startsWith(short);
}

/**
 * A schema's description, or ''.
 *
 * @example
 * descriptionOf({ type: 'string', description: 'The task ID' }) // 'The task ID'
 */
export function descriptionOf(schema: unknown): string {
  const text = schema && typeof schema === 'object' ? (schema as Record<string, unknown>).description : undefined;
  return typeof text === 'string' ? text : '';
}
