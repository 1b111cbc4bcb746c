/**
 * The guard that keeps learning from hurting: a prompt that shares no word with any of the
 * tenant's examples is ranked exactly as without learning. A learned copy moves every query
 * (the query projection) and lifts learned partners of any selected tool, which can cost a
 * prompt from another domain its right tools (the library's learning lowers Seal-Tools'
 * out-of-domain recall); a prompt unlike every example gains nothing from the examples anyway.
 * Words are the selectors' own tokens (three or more characters, stopwords out).
 */
import { textTokens } from '../../../text/words.js';
import type { StoredExample } from './tenant-state.js';

// The words of a snapshot's examples, once per examples list (a cached snapshot keeps its list).
const vocabularies = new WeakMap<readonly StoredExample[], ReadonlySet<string>>();

/**
 * Whether `query` shares a word with at least one example.
 *
 * @example
 * likeAnExample('weather in Oslo tomorrow', [{ key: 'k', query: 'Oslo weather', tools: ['w'], at: 0 }]) // true
 * likeAnExample('send an invoice', [{ key: 'k', query: 'Oslo weather', tools: ['w'], at: 0 }]) // false
 */
export function likeAnExample(query: string | undefined, examples: readonly StoredExample[]): boolean {
  if (query === undefined) return false;
  let words = vocabularies.get(examples);
  if (!words) {
    const all = new Set<string>();
    for (const example of examples) for (const word of textTokens(example.query)) all.add(word);
    words = all;
    vocabularies.set(examples, words);
  }
  const known = words;
  return textTokens(query).some((word) => known.has(word));
}
