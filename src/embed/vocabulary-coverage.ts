/**
 * Whether a dense ranking can trust a query's vector: a prompt in a script the model never
 * saw (Japanese under an English vocabulary) tokenizes to unknowns, and its vector ranks
 * unrelated tools as confidently as related ones. Embedders that know their vocabulary say
 * how much of a text it covers (`Embedder.vocabularyCoverage`).
 */
import type { Embedder } from './embedder.js';

/** Below this share of known words and letters a query's vector is not used to rank. */
export const MIN_VOCABULARY_COVERAGE = 0.5;

/**
 * Why `texts` cannot be ranked densely by `embedder`, or undefined when they can (or the
 * embedder cannot tell).
 *
 * @example
 * unreadableQuery(useLite, ['東京の天気は？']) // 'the prompt is mostly outside the embedding model's vocabulary (100% of its words and letters unknown)…'
 */
export function unreadableQuery(embedder: Embedder, texts: readonly string[]): string | undefined {
  if (!embedder.vocabularyCoverage) return undefined;
  for (const text of texts) {
    const share = embedder.vocabularyCoverage(text);
    if (share !== undefined && share < MIN_VOCABULARY_COVERAGE) {
      return `the prompt is mostly outside the embedding model's vocabulary (${Math.round((1 - share) * 100)}% of its words and letters unknown), so its vector cannot rank`;
    }
  }
  return undefined;
}
