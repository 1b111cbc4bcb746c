/**
 * The one tool search: a free-text query → registry tools, best first. Every door that lets a
 * model search the registry (`find_tools` today) calls this, so they all rank the same way:
 * with the caller's selector where it can rank, BM25 where it cannot.
 */

import { mergeOptions } from '../options.js';
import { ownEntry } from '../registry/name-record.js';
import type { ToolSchema } from '../registry/schema.js';
import type { Lexicon } from '../text/lexicon.js';
import { Bm25Selector } from './bm25-selector.js';
import { runSelection } from './run-selection.js';
import type { AsyncToolSelector } from './selector.js';

/** One tool a search found, with the score it was ranked by (higher is better). */
export interface ToolSearchHit {
  readonly name: string;
  readonly score: number;
  /** Which ranking found it: the caller's selector, or the BM25 fallback. */
  readonly rankedBy: 'selector' | 'bm25';
}

/** Options for {@link searchTools}. */
export interface SearchToolsOptions {
  /** Ranks the registry for the query; without one (or where it cannot rank) BM25 does. */
  readonly selector?: AsyncToolSelector;
  /** How many tools to return. Default 5. */
  readonly k?: number;
  /** Tool names never returned (e.g. those already on offer). */
  readonly exclude?: ReadonlySet<string>;
  readonly signal?: AbortSignal;
  /** The language of the BM25 fallback's query words (its stopwords). Default: English. */
  readonly lexicon?: Lexicon;
}

/**
 * Longest query a search takes, in characters (the rest is cut).
 *
 * @example
 * const query = modelQuery.trim().slice(0, MAX_SEARCH_QUERY_CHARS)
 */
export const MAX_SEARCH_QUERY_CHARS = 1000;

// One BM25 selector per (lexicon, depth), so repeated searches of one registry reuse it.
const bm25ByDepth = new Map<Lexicon | undefined, Map<number, Bm25Selector>>();

/** Deepest a selector is asked to rank for one search (its picks past the excluded tools). */
const MAX_SELECTOR_DEPTH = 64;
// Deeper copies of a selector (`withTopK`), one per depth, kept as long as the selector is.
const deeperCopies = new WeakMap<AsyncToolSelector, Map<number, AsyncToolSelector>>();

/**
 * The selector asked for `depth` tools when it can be (the built-ins have `withTopK`): the
 * excluded tools (those already on offer) are often its own top picks, and a search must still
 * find `k` more. Other selectors rank as they are.
 */
function deeper(selector: AsyncToolSelector, depth: number): AsyncToolSelector {
  const withTopK = (selector as { withTopK?: (k: number) => AsyncToolSelector }).withTopK;
  if (typeof withTopK !== 'function') return selector;
  let copies = deeperCopies.get(selector);
  if (!copies) {
    copies = new Map();
    deeperCopies.set(selector, copies);
  }
  let copy = copies.get(depth);
  if (!copy) {
    try {
      copy = withTopK.call(selector, depth);
    } catch {
      copy = selector;
    }
    copies.set(depth, copy);
  }
  return copy;
}

/**
 * Rank `all` for `query` and return the top `k` hits not in `exclude`. The selector's ranking
 * (asked for `k` plus the excluded count, up to 64, when it has `withTopK`) is used when it
 * scores tools for the query (it did not fall open and found something new); otherwise BM25.
 * A selector that throws rejects (callers turn that into an error result); an empty or blank
 * query returns no hits.
 *
 * @example
 * const hits = await searchTools('post a message to a channel', registry.schemas(), { selector: hybrid, k: 5 })
 * hits.map((hit) => hit.name) // ['slack_post_message', …]
 */
export async function searchTools(
  query: string,
  all: readonly ToolSchema[],
  options: SearchToolsOptions = {},
): Promise<ToolSearchHit[]> {
  const { k, exclude, selector, signal, lexicon } = mergeOptions(
    { k: 5, exclude: new Set<string>() as ReadonlySet<string> },
    options,
  );
  if (!(Number.isInteger(k) && k > 0)) throw new RangeError(`search k must be a positive integer, got ${k}`);
  const text = query.trim().slice(0, MAX_SEARCH_QUERY_CHARS);
  if (text === '') return [];
  const fresh = (hits: ToolSearchHit[]) => hits.filter((hit) => !exclude.has(hit.name)).slice(0, k);
  if (selector) {
    const ctx = { turn: 1, latestUserMessage: text, conversation: [{ role: 'user' as const, content: text }] };
    const ranker = deeper(selector, Math.min(MAX_SELECTOR_DEPTH, Math.max(k, k + exclude.size)));
    const selection = await runSelection(ranker, ctx, all, { signal });
    if (selection.fault === 'selector_failed') throw new Error(selection.warnings[0] ?? 'the selector failed');
    if (!selection.fellOpen) {
      const hits: ToolSearchHit[] = [];
      const near = new Set<string>();
      for (const name of selection.names) {
        const reason = selection.reasons[name];
        if (typeof reason?.score === 'number' && !reason.core)
          hits.push({ name, score: reason.score, rankedBy: 'selector' });
        if (reason?.near) near.add(name);
      }
      // Near picks widen what a turn advertises past its k; a search of k lists them last, so
      // they never push out a tool the ranking picked.
      hits.sort((a, b) => Number(near.has(a.name)) - Number(near.has(b.name)) || b.score - a.score);
      const picked = fresh(hits);
      if (picked.length > 0) return picked;
    }
  }
  // BM25 over more than k, so the excluded ones can be skipped.
  const depth = k + exclude.size;
  const byDepth = bm25ByDepth.get(lexicon) ?? new Map<number, Bm25Selector>();
  bm25ByDepth.set(lexicon, byDepth);
  let bm25 = byDepth.get(depth);
  if (!bm25) {
    bm25 = new Bm25Selector(lexicon ? { topK: depth, lexicon } : { topK: depth });
    if (byDepth.size > 32) byDepth.clear();
    byDepth.set(depth, bm25);
  }
  const output = bm25.select({ turn: 1, latestUserMessage: text, conversation: [] }, all);
  if (output.fellOpen) return [];
  const hits = output.tools.map((tool) => ({
    name: tool.name,
    score: ownEntry(output.reasons, tool.name)?.score ?? 0,
    rankedBy: 'bm25' as const,
  }));
  hits.sort((a, b) => b.score - a.score);
  return fresh(hits);
}
