/**
 * Postings by entity: the documents of an inverted index that hold a word of the same entity as
 * a given word: the word itself, its prefixes ("document" holds "doc") and the words it is a
 * prefix of ("doc" finds "document"), with one binary search over the sorted keys.
 */
import type { LexicalIndex } from './lexical-index.js';
import { sameEntity } from './link-words.js';

/** Documents holding a word of one entity, memoised per word. */
export type EntityPostings = (word: string) => readonly number[];

/**
 * A lookup of the documents holding a word of the same entity as `word`, over one index.
 *
 * @example
 * const holders = entityPostings(buildIndex([['document'], ['doc'], ['task']]))
 * holders('doc') // [1, 0]
 */
export function entityPostings(index: LexicalIndex): EntityPostings {
  const { postings } = index;
  const keys = [...postings.keys()].sort();
  const memo = new Map<string, number[]>();
  return (word) => {
    let out = memo.get(word);
    if (out) return out;
    out = [];
    for (let end = 3; end <= word.length; end++) {
      const prefix = word.slice(0, end);
      if (sameEntity(prefix, word)) out.push(...(postings.get(prefix) ?? []));
    }
    for (let i = lowerBound(keys, word); i < keys.length && (keys[i] as string).startsWith(word); i++) {
      const key = keys[i] as string;
      if (key !== word && sameEntity(key, word)) out.push(...(postings.get(key) ?? []));
    }
    memo.set(word, out);
    return out;
  };
}

// The first position in sorted `keys` not below `word`.
function lowerBound(keys: readonly string[], word: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if ((keys[mid] as string) < word) low = mid + 1;
    else high = mid;
  }
  return low;
}
