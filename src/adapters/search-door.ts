/**
 * What every SDK adapter's tool search shares: its options, the query check, and one call to
 * `searchTools` (the loop's own search function) over the SDK's deferred tools. The SDKs hand
 * over a fresh tool list on every search, so the list is kept per content: a selector's
 * indexes (kept per tool-list identity) are built once per registry, not once per search.
 */
import { errorMessage } from '../describe-error.js';
import type { ToolSchema } from '../registry/schema.js';
import { MAX_SEARCH_QUERY_CHARS, searchTools } from '../select/search-tools.js';
import type { AsyncToolSelector } from '../select/selector.js';

/** Options every loopctl tool search for an SDK takes. */
export interface ToolSearchAdapterOptions {
  /** Ranks the tools for the query: any loopctl selector (a hybrid, BM25…). Without one, BM25. */
  readonly selector?: AsyncToolSelector;
  /** Tools one search returns, best first. Default 5 (what the hosted searches return). */
  readonly k?: number;
}

/** The JSON Schema of a search's arguments (a type alias, so SDKs' indexed schema types accept it). */
export type QuerySchema = {
  type: 'object';
  properties: { query: { type: 'string'; description: string } };
  required: string[];
  additionalProperties: boolean;
};

/** The query schema the search tools declare (a fresh copy each time: SDKs may keep and change it). */
export function querySchema(): QuerySchema {
  return {
    type: 'object',
    properties: { query: { type: 'string', description: 'What the tool should do, in a few words.' } },
    required: ['query'],
    additionalProperties: false,
  };
}

/** What the search tools tell the model. */
export const SEARCH_DESCRIPTION =
  'Search the available tools by what you need done. The tools it finds can be called from your next step. Call it when none of the tools you have fits the task.';

/** The query the model sent, checked: a clear message when there is none. */
export function queryOf(args: unknown): string | { readonly error: string } {
  const query = typeof args === 'object' && args !== null ? (args as { query?: unknown }).query : undefined;
  if (typeof query !== 'string' || query.trim() === '')
    return { error: 'tool search needs a non-empty "query" string, like {"query": "send an email"}' };
  return query.trim().slice(0, MAX_SEARCH_QUERY_CHARS);
}

// The last few tool lists searched, by content, so each keeps one identity (and one index).
// Keyed by the content itself, not a hash of it: these lists are shared by every caller in
// the process, and a list that reached another's key would be searched in its place.
const lists = new Map<string, ToolSchema[]>();

/** `tools` as one stable list per content. */
export function stableList(tools: readonly ToolSchema[]): ToolSchema[] {
  const key = JSON.stringify(tools.map((tool) => [tool.name, tool.description, tool.parameters ?? {}]));
  let list = lists.get(key);
  if (!list) {
    list = [...tools];
    if (lists.size >= 8) lists.delete(lists.keys().next().value as string);
    lists.set(key, list);
  }
  return list;
}

/**
 * Rank `tools` for `query` with the options' selector (BM25 without one) and return the top
 * `k` names, best first.
 *
 * @example
 * const names = await rankNames('send an email', deferredSchemas, { selector: hybrid, k: 5 })
 */
export async function rankNames(
  query: string,
  tools: readonly ToolSchema[],
  options: ToolSearchAdapterOptions,
  signal?: AbortSignal,
): Promise<string[]> {
  const hits = await searchTools(query, stableList(tools), {
    ...(options.selector ? { selector: options.selector } : {}),
    k: options.k ?? 5,
    ...(signal ? { signal } : {}),
  });
  return hits.map((hit) => hit.name);
}

/** A deferred tool as an SDK declares it: its schema under whichever key the protocol uses. */
export interface DeclaredTool {
  readonly name: string;
  readonly description?: string | null | undefined;
}

/**
 * {@link rankNames} over an SDK's own tool declarations (`schemaOf` reads the protocol's schema
 * key); a failed search that was not aborted comes back as the message the model is shown.
 *
 * @example
 * const found = await searchDeclared('send an email', deferred, (t) => t.input_schema, { k: 5 })
 * if ('error' in found) return fail(found.error)
 */
export async function searchDeclared<T extends DeclaredTool>(
  query: string,
  tools: readonly T[],
  schemaOf: (tool: T) => unknown,
  options: ToolSearchAdapterOptions,
  signal?: AbortSignal,
): Promise<{ names: string[] } | { error: string }> {
  const schemas: ToolSchema[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description ?? '',
    parameters: (schemaOf(tool) ?? {}) as ToolSchema['parameters'],
  }));
  try {
    return { names: await rankNames(query, schemas, options, signal) };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { error: `tool search failed: ${errorMessage(error)}` };
  }
}

/** Checked at construction, so a bad k fails where it was written. */
export function checkK(k: number | undefined): void {
  if (k !== undefined && !(Number.isInteger(k) && k > 0))
    throw new RangeError(`tool search k must be a positive integer, got ${k}`);
}

/**
 * A tool list for a vendor whose deferred tools are `type: 'function'` entries with
 * `defer_loading` (OpenAI Responses, Gemini): every function not named in `loaded` deferred,
 * any earlier `tool_search` dropped, and `search` last.
 *
 * @example
 * deferUnloaded([{ type: 'function', name: 'a' }, { type: 'function', name: 'b' }], ['a'], searchTool)
 * // [{ type: 'function', name: 'a' }, { type: 'function', name: 'b', defer_loading: true }, searchTool]
 */
export function deferUnloaded<T extends { readonly type: string; readonly name?: string | undefined }, S>(
  all: readonly T[],
  loaded: Iterable<string>,
  search: S,
): (T | S)[] {
  const keep = new Set(loaded);
  return [
    ...all
      .filter((t) => t.type !== 'tool_search')
      .map((t) => (t.type !== 'function' || keep.has(t.name ?? '') ? t : { ...t, defer_loading: true })),
    search,
  ];
}
