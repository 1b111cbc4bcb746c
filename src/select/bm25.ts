import type { Derivation } from '../registry/registry-snapshot.js';
import { bm25Document } from './lexical-index.js';

/** BM25 parameters. */
export interface Bm25Params {
  /** Term-frequency saturation. Default 1.2. */
  k1: number;
  /** Length normalisation. Default 0.75. */
  b: number;
}

/** A BM25 index over tool documents, built once per tool list. */
export interface Bm25Index {
  readonly size: number;
  /** Score every tool for the query words; tools that match nothing score 0. */
  score(words: readonly string[]): Float64Array;
  /**
   * A reference score for the query: what a document of half the average length holding
   * each known query word once would earn. Lets a blend judge how strong the best lexical
   * match really is, whatever the registry's size.
   */
  reference(words: readonly string[]): number;
}

/**
 * A registry's BM25 index with the default parameters (k1 1.2, b 0.75), over each tool's
 * unstemmed document: the Bm25Selector's.
 *
 * @example
 * const scores = registrySnapshot(all).get(bm25Index).score(['weather', 'city'])
 */
export const bm25Index: Derivation<Bm25Index> = ({ tools }) => buildBm25(tools.map(bm25Document), { k1: 1.2, b: 0.75 });

/** Build BM25 over arbitrary token documents. */
export function buildBm25(documents: readonly string[][], params: Bm25Params): Bm25Index {
  const n = documents.length;
  const lengths = new Float64Array(n);
  // One map lookup per token: a word's entry knows the last document it counted, so a repeat
  // within a document bumps that count (no per-document map; a first turn builds this).
  const postings = new Map<string, { docs: number[]; tf: number[]; last: number }>();
  documents.forEach((tokens, doc) => {
    lengths[doc] = tokens.length;
    for (const token of tokens) {
      const entry = postings.get(token);
      if (!entry) postings.set(token, { docs: [doc], tf: [1], last: doc });
      else if (entry.last === doc) (entry.tf[entry.tf.length - 1] as number)++;
      else {
        entry.docs.push(doc);
        entry.tf.push(1);
        entry.last = doc;
      }
    }
  });
  const avgLength = n === 0 ? 0 : lengths.reduce((a, b) => a + b, 0) / n || 1;
  const { k1, b } = params;
  const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return {
    size: n,
    reference(words) {
      let total = 0;
      for (const word of new Set(words)) {
        const df = postings.get(word)?.docs.length ?? 0;
        if (df > 0) total += (idfOf(df) * (k1 + 1)) / (1 + k1 * (1 - b + b * 0.5));
      }
      return total;
    },
    score(words) {
      const scores = new Float64Array(n);
      for (const word of new Set(words)) {
        const entry = postings.get(word);
        if (!entry) continue;
        const df = entry.docs.length;
        const idf = idfOf(df);
        for (let i = 0; i < df; i++) {
          const doc = entry.docs[i] as number;
          const tf = entry.tf[i] as number;
          const norm = k1 * (1 - b + (b * (lengths[doc] as number)) / avgLength);
          scores[doc] = (scores[doc] as number) + (idf * (tf * (k1 + 1))) / (tf + norm);
        }
      }
      return scores;
    },
  };
}
