/**
 * What a request asks done, as one of a few action classes, and what a tool's name says it
 * does. "Email him the details" and `send_email` are both *send*; `reply_to_email` is
 * *reply*: a verb shared by many tools ("email", "task") is told apart by the action, not the
 * noun. The verbs are the lexicon's (English by default), no model.
 */

import { englishLoaded } from './english.js';
import type { LoadedLexicon } from './lexicon.js';
import { rawWords, splitName } from './words.js';

// Roles in the verb table that are not action classes.
const ROLES = new Set(['noun', 'name', 'finds', 'fetches']);

/** A lexicon's action tables, compiled once per lexicon. */
interface ActionTables {
  /** Stem → its action (the first class of the table that holds the stem). */
  readonly byWord: ReadonlyMap<string, string>;
  readonly nounVerbs: ReadonlySet<string>;
  readonly leads: ReadonlySet<string>;
  readonly stem: (word: string) => string;
  readonly plural: string;
}

const compiled = new WeakMap<LoadedLexicon, ActionTables>();

function tables(lexicon: LoadedLexicon): ActionTables {
  let found = compiled.get(lexicon);
  if (!found) {
    const { stem, verbs } = lexicon;
    // The first class of a stem wins, in the order the classes were once listed: class by
    // class, each class's words in table order.
    const classes: string[] = [];
    const nounVerbs = new Set<string>();
    for (const word in verbs) {
      for (const tag of (verbs[word] as string).split(' ')) {
        if (tag === 'noun') nounVerbs.add(word);
        else if (!ROLES.has(tag) && !classes.includes(tag)) classes.push(tag);
      }
    }
    const byWord = new Map<string, string>();
    for (const name of classes)
      for (const word in verbs)
        if ((verbs[word] as string).split(' ').includes(name) && !byWord.has(stem(word))) byWord.set(stem(word), name);
    found = { byWord, nounVerbs, leads: new Set(lexicon.leads), stem, plural: lexicon.pluralSuffix };
    compiled.set(lexicon, found);
  }
  return found;
}

// A word that is a noun as often as a verb counts as the action only where a verb would stand:
// at the start of the request or after a word that leads into one ("please email him").
const isNounVerb = (word: string, t: ActionTables): boolean => t.nounVerbs.has(word) || t.nounVerbs.has(t.stem(word));
// "emails", "tasks": a plural is a noun, never the verb of a request.
const isPlural = (word: string, t: ActionTables): boolean =>
  word.length > 3 && word.endsWith(t.plural) && !word.endsWith(t.plural + t.plural) && t.stem(word) !== word;

/**
 * The action a request asks for: a phrase ("let him know", "roll back"), else its first verb
 * of the table, where a word that is as often a noun ("email", "message") counts only where a
 * verb would stand. Undefined when none is found.
 *
 * @example
 * requestAction('email him the details') // 'send'
 * requestAction('Reply to Mark\'s email about the budget') // 'reply'
 * requestAction('how many unread emails do I have') // undefined
 */
export function requestAction(text: string, lexicon: LoadedLexicon = englishLoaded): string | undefined {
  const t = tables(lexicon);
  const head = typeof text === 'string' ? text.slice(0, 400) : '';
  const words = rawWords(head);
  let firstPhrase: { at: number; action: string } | undefined;
  for (const [pattern, action] of lexicon.actionPhrases) {
    const match = pattern.exec(head);
    if (match && (!firstPhrase || match.index < firstPhrase.at)) firstPhrase = { at: match.index, action };
  }
  // The word position of the phrase, to compare with the first verb's.
  const phraseWord = firstPhrase ? rawWords(head.slice(0, firstPhrase.at)).length : Infinity;
  for (let i = 0; i < words.length && i < phraseWord; i++) {
    const word = words[i] as string;
    const action = t.byWord.get(t.stem(word));
    if (!action || isPlural(word, t)) continue;
    if (isNounVerb(word, t) && i > 0 && !t.leads.has(words[i - 1] as string)) continue;
    return action;
  }
  return firstPhrase?.action || undefined;
}

/**
 * Whether a text opens with a request of its own: its first word (after words that lead into
 * one, "please", "also") is a verb of the table, or a phrase of the table starts there ("let
 * #ops know"). "and page the on-call" does; "and dogs" does not.
 *
 * @example
 * opensWithAction('ack ALR-7710') // true
 * opensWithAction('the details') // false
 */
export function opensWithAction(text: string, lexicon: LoadedLexicon = englishLoaded): boolean {
  const t = tables(lexicon);
  const head = typeof text === 'string' ? text.slice(0, 200) : '';
  const words = rawWords(head);
  let at = 0;
  while (at < words.length && t.leads.has(words[at] as string)) at++;
  const first = words[at];
  if (first === undefined) return false;
  if (t.byWord.has(t.stem(first)) && !isPlural(first, t)) return true;
  const rest = words.slice(at).join(' ');
  return lexicon.actionPhrases.some(([pattern, action]) => action !== '' && pattern.exec(rest)?.index === 0);
}

/**
 * The actions a tool performs, from its name and the head of its description: each name word
 * of the table, except that a word as often a noun ("email", "message", "reply") counts only
 * as the name's first word or when the name has no other verb (`reply_to_email` replies, it
 * does not send; `post_message` posts), plus the first verb of the description's first words.
 *
 * @example
 * toolActions('send_email', 'Compose and send a new email.') // Set { 'send', 'create' }
 * toolActions('reply_to_email', 'Reply to an email.') // Set { 'reply' }
 * toolActions('add_ticket_reply', 'Reply to the customer on a ticket.') // Set { 'create', 'reply' }
 */
export function toolActions(
  name: string,
  description = '',
  lexicon: LoadedLexicon = englishLoaded,
): ReadonlySet<string> {
  const t = tables(lexicon);
  const action = (word: string) => t.byWord.get(t.stem(word));
  const words = splitName(typeof name === 'string' ? name : '').flatMap(rawWords);
  const out = new Set<string>();
  const plain = words.filter(
    (word, i) => action(word) !== undefined && (i === 0 || (!isNounVerb(word, t) && !isPlural(word, t))),
  );
  for (const word of plain) out.add(action(word) as string);
  if (out.size === 0) for (const word of words) if (action(word) !== undefined) out.add(action(word) as string);
  // Descriptions open with what the tool does ("Reply to…", "Full-text search over…").
  const head = typeof description === 'string' ? rawWords(description.slice(0, 200)).slice(0, 3).join(' ') : '';
  const described = head ? requestAction(head, lexicon) : undefined;
  if (described) out.add(described);
  return out;
}

// How a question or a wish opens ("what is…", "can you…"): the first word is an ask, or starts
// with one that a character outside [A-Za-z0-9_] ends (the old pattern's `\b`).
function opensWithAsk(word: string | undefined, asks: readonly string[]): boolean {
  if (word === undefined) return false;
  return asks.some(
    (ask) => word.startsWith(ask) && (word.length === ask.length || !/\w/.test(word.charAt(ask.length))),
  );
}

/**
 * Whether a clause asks for something, as a command (see {@link opensWithAction}), a question
 * or a wish, rather than saying what the request carries ("We accept clauses 3 and 4" after
 * "Reply to Carla's email." is the reply's content, not a second request).
 *
 * @example
 * readsAsRequest('what is the weather in Paris') // true
 * readsAsRequest('We accept clauses 3 and 4') // false
 */
export function readsAsRequest(text: string, lexicon: LoadedLexicon = englishLoaded): boolean {
  if (typeof text !== 'string') return false;
  if (/\?\s*$/.test(text)) return true;
  const head = rawWords(text.slice(0, 200));
  let at = 0;
  while (at < head.length && lexicon.continuers.includes(head[at] as string)) at++;
  // "We accept…", "I love…": a speaker and a plain verb state something; "I need…", "we
  // should…", "I'd like…" ask.
  if (lexicon.speakers.includes(head[at] as string)) return lexicon.wishes.includes(head[at + 1] as string);
  return opensWithAction(head.slice(at).join(' '), lexicon) || opensWithAsk(head[at], lexicon.asks);
}
