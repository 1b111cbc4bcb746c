/**
 * Reachable recall for deferred loading: what a model can call after one search. For each case,
 * the *loaded* set is the loop selector's pick for the prompt, and one search for the prompt
 * returns `k` more tools (5: the hosted searches return 3–5), skipping the loaded ones. A case
 * is reachable when every expected tool is loaded or found. The same loaded set is used for
 * every search method, so the columns differ only by the search; `searchOnly` is the search
 * alone, with nothing loaded (every tool deferred).
 */
import type { ToolSchema } from '../registry/schema.js';
import { searchTools } from '../select/search-tools.js';
import type { AsyncToolSelector } from '../select/selector.js';
import type { EvalCase } from './eval-data.js';
import { selectFor } from './evaluate.js';
import { aiSdkKeywordSearch, regexReferenceSearch } from './search-baselines.js';

/** One search method's figures on one set. */
export interface ReachableReport {
  readonly method: string;
  readonly cases: number;
  /** Share of cases whose expected tools are all among one search's `k` results (nothing loaded). */
  readonly searchOnly: number;
  /** Share of cases whose expected tools are all loaded or among one search's `k` results. */
  readonly reachable: number;
}

/** A search: the top `k` names for `query` among `tools`, skipping `exclude`. */
export type SearchMethod = (
  query: string,
  tools: readonly ToolSchema[],
  k: number,
  exclude: ReadonlySet<string>,
) => Promise<string[]>;

/** The methods compared: the AI SDK default, the regex reference, BM25, and loopctl's own search with `selector`. */
export function searchMethods(selector: AsyncToolSelector): Record<string, SearchMethod> {
  const without = (names: string[], exclude: ReadonlySet<string>, k: number) =>
    names.filter((name) => !exclude.has(name)).slice(0, k);
  return {
    'ai-sdk keyword': async (query, tools, k, exclude) =>
      without(aiSdkKeywordSearch(query, tools, k + exclude.size), exclude, k),
    'regex reference': async (query, tools, k, exclude) =>
      without(regexReferenceSearch(query, tools, k + exclude.size), exclude, k),
    bm25: async (query, tools, k, exclude) => (await searchTools(query, tools, { k, exclude })).map((hit) => hit.name),
    [`loopctl ${selector.name ?? 'selector'}`]: async (query, tools, k, exclude) =>
      (await searchTools(query, tools, { selector, k, exclude })).map((hit) => hit.name),
  };
}

/**
 * Reachable recall of each search method on labelled cases, with `loader`'s pick loaded.
 *
 * @example
 * const rows = await evaluateReachable(hybridAt8, searchMethods(hybridAt8), tools, cases, 5)
 */
export async function evaluateReachable(
  loader: AsyncToolSelector,
  methods: Readonly<Record<string, SearchMethod>>,
  tools: readonly ToolSchema[],
  cases: readonly EvalCase[],
  k = 5,
): Promise<{ rows: ReachableReport[]; loadedOnly: number; meanLoaded: number }> {
  const signal = new AbortController().signal;
  const none = new Set<string>();
  const names = Object.keys(methods);
  const only = new Map(names.map((name) => [name, 0]));
  const reached = new Map(names.map((name) => [name, 0]));
  let loadedOnly = 0;
  let loadedTotal = 0;
  const covers = (expected: readonly string[], found: ReadonlySet<string>) => expected.every((name) => found.has(name));
  for (const item of cases) {
    const loaded = new Set((await selectFor(loader, item.query, tools, signal)).names);
    loadedTotal += loaded.size;
    if (covers(item.expected, loaded)) loadedOnly += 1;
    for (const name of names) {
      const method = methods[name] as SearchMethod;
      const alone = new Set(await method(item.query, tools, k, none));
      if (covers(item.expected, alone)) only.set(name, (only.get(name) ?? 0) + 1);
      const found = await method(item.query, tools, k, loaded);
      if (covers(item.expected, new Set([...loaded, ...found]))) reached.set(name, (reached.get(name) ?? 0) + 1);
    }
  }
  const n = Math.max(1, cases.length);
  return {
    rows: names.map((method) => ({
      method,
      cases: cases.length,
      searchOnly: (only.get(method) ?? 0) / n,
      reachable: (reached.get(method) ?? 0) / n,
    })),
    loadedOnly: loadedOnly / n,
    meanLoaded: loadedTotal / n,
  };
}
