/**
 * The seam between the lexical heuristics and a language: every word table, word pattern and
 * stemmer a rule reads comes from one `Lexicon` value, and every rule is a pure function of the
 * text and the lexicon. English (`english`, in `english.ts`) is the default; another language is
 * one file that builds its own value.
 *
 * A lexicon has two parts, for the bundle's sake: what tokenising and query expansion read on
 * every turn (stopwords, stemmer, synonyms; English's are in the core bundle, which a selector
 * given no lexicon reads), and the rule tables (tool-name verbs, sequencing words, handle words,
 * shorthand…), which may load with the rules that read them (`rules`, a value or a loader).
 * A prompt mostly in a script the rules do not cover skips them, and the selection says so.
 */

/** A bidirectional synonym pair: each side expands to the other, query-side only. */
export type SynonymPair = readonly [string, string];

/** A phrase that, found on word boundaries in the query, adds a word. */
export type PhrasePair = readonly [phrase: string, word: string];

/** A language: what tokenising and query expansion read, and its rule tables. */
export interface Lexicon {
  /** A name for messages ("english"). */
  readonly language: string;
  /** Words that carry no selection signal ("the", "please"). */
  readonly stopwords: ReadonlySet<string>;
  /** Folds the forms of a word together ("files" → "file"). */
  readonly stem: (word: string) => string;
  /** Query-side synonym pairs (each side expands to the other). */
  readonly synonyms: readonly SynonymPair[];
  /** Phrases that add a word to the query ("look up" → search). */
  readonly phrases: readonly PhrasePair[];
  /** The rule tables, loaded with the first rule that reads them (a value or a loader). */
  readonly rules: LexicalRules | (() => LexicalRules | Promise<LexicalRules>);
}

/**
 * The tables the lexical rules read: which name words find or fetch, how clauses are
 * sequenced, which words name a handle, which shorthand means what. Patterns are data too: the
 * clause splitter reads its separators from here.
 */
export interface LexicalRules {
  /**
   * Letters of the scripts the rules are written for (English: Latin). A prompt whose letters
   * are mostly outside them skips the rules rather than meeting rules of another language.
   */
  readonly scripts: RegExp;

  // Actions: what a request asks done (text/actions.ts).
  /**
   * Tool names' verbs: word → its roles, `name` (in a tool's name, the action and never the
   * entity it is about), `finds` / `fetches` (a tool name word that finds what exists, or
   * fetches one thing). Each rule reads only the words that carry its tag.
   */
  readonly verbs: Readonly<Record<string, string>>;
  /** The ending of a plural ("tasks"): a tool name about many of a thing lists them. */
  readonly pluralSuffix: string;

  // Clauses (text/clauses.ts).
  /** Sentence ends and semicolons (a lexicon may add sequencing words): separators, dropped. */
  readonly clauseSeparator: RegExp;
  /** The plain "and" that may split two requests. */
  readonly clauseAnd: RegExp;
  /** A sequencing word left at the start of a clause ("Also calculate …"), removed. */
  readonly clauseLead: RegExp;
  /** Words that open the next item of an enumeration ("First, … Second, …"). */
  readonly enumeration: RegExp;

  // Shorthand (text/shorthand.ts).
  /** Short form (lowercase) → what it stands for ("ack" → acknowledge). */
  readonly shorthand: Readonly<Record<string, string>>;
  /** What a chat channel ("#ops") is spelled out as. */
  readonly channel: string;

  // Handles: the inputs another tool produces (select/handle-inputs.ts and its neighbours).
  /** Words that make a parameter a handle (`id`, `ticker`, `sku`). */
  readonly handleWords: readonly string[];
  /** The handle words that, in a parameter's description, say it is a handle. */
  readonly handleText: readonly string[];
  /** The bare, generic handle words (`id`, `ids`): they say nothing of the entity. */
  readonly bareHandles: readonly string[];
  /** Words after a handle word that lead to its entity ("IDs of the tasks"). */
  readonly handleOf: readonly string[];
  /** Words skipped between a handle word and its entity ("ID of the task"). */
  readonly glue: readonly string[];
  /** Adjectives and kinds that are never the entity ("unique", "string", "details"). */
  readonly generic: readonly string[];
  /** Words that point at another tool in a description, tagged `tool`: "returned by list_refs". */
  readonly pointers: Readonly<Record<string, string>>;
}

/** A lexicon with its rule tables loaded: what a rule reads. */
export type LoadedLexicon = Omit<Lexicon, 'rules'> & LexicalRules;

const loaded = new WeakMap<Lexicon, Promise<LoadedLexicon>>();

/**
 * The lexicon with its rule tables loaded, once per lexicon.
 *
 * @example
 * const words = await loadLexicon(english)
 * words.verbs.search // 'finds'
 */
export function loadLexicon(lexicon: Lexicon): Promise<LoadedLexicon> {
  let ready = loaded.get(lexicon);
  if (!ready) {
    const { rules, ...core } = lexicon;
    ready = Promise.resolve(typeof rules === 'function' ? rules() : rules).then((tables) => ({ ...core, ...tables }));
    loaded.set(lexicon, ready);
  }
  return ready;
}

/**
 * Whether the rules of a lexicon are written for this text: at least half its letters are in
 * the lexicon's scripts (a text without letters is covered: nothing in it can misfire).
 *
 * @example
 * coversText(englishLoaded, 'email Dana the report') // true
 * coversText(englishLoaded, '会議の議事録をチームに送って') // false
 */
export function coversText(lexicon: Pick<LexicalRules, 'scripts'>, text: string): boolean {
  let letters = 0;
  let covered = 0;
  const scripts = new RegExp(lexicon.scripts.source, 'u');
  for (const [letter] of (typeof text === 'string' ? text.slice(0, 4000) : '').matchAll(/\p{L}/gu)) {
    letters++;
    if (scripts.test(letter)) covered++;
  }
  return covered * 2 >= letters;
}

/**
 * Why the lexical rules were skipped for a prompt (a warning), or undefined when they apply.
 *
 * @example
 * skippedRules(englishLoaded, 'Отправь отчёт Дане')
 * // 'lexical rules skipped: the prompt is mostly in a script the english lexicon does not cover'
 */
export function skippedRules(lexicon: LoadedLexicon, text: string): string | undefined {
  return coversText(lexicon, text)
    ? undefined
    : `lexical rules skipped: the prompt is mostly in a script the ${lexicon.language} lexicon does not cover`;
}

const tagMemo = new WeakMap<object, Map<string, ReadonlySet<string>>>();

/**
 * The words of a tagged table (`verbs`, `pointers`) that carry `tag`, in table order; once per
 * table and tag.
 *
 * @example
 * tagged(englishRules.verbs, 'finds').has('search') // true
 */
export function tagged(table: Readonly<Record<string, string>>, tag: string): ReadonlySet<string> {
  let byTag = tagMemo.get(table);
  if (!byTag) {
    byTag = new Map();
    tagMemo.set(table, byTag);
  }
  let words = byTag.get(tag);
  if (!words) {
    words = new Set(Object.keys(table).filter((word) => (table[word] as string).split(' ').includes(tag)));
    byTag.set(tag, words);
  }
  return words;
}

/**
 * The lexicon loaded for a prompt, with why its rules are skipped when they do not cover it.
 *
 * @example
 * const { lexicon, skipped } = await promptRules(english, '会議の議事録をチームに送って')
 * // skipped: 'lexical rules skipped: …'
 */
export async function promptRules(
  lexicon: Lexicon,
  prompt: string,
): Promise<{ lexicon: LoadedLexicon; skipped?: string }> {
  const ready = await loadLexicon(lexicon);
  const skipped = skippedRules(ready, prompt);
  return skipped ? { lexicon: ready, skipped } : { lexicon: ready };
}
