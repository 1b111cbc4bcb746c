/**
 * `find_tools`: a way back after a selection miss. The loop advertises one extra tool whose
 * description tells the model to call it when none of the offered tools fits; its handler
 * ranks the whole registry for the model's query (with the loop's own selector, or BM25 where
 * that cannot rank), answers with the top names and a one-line summary each, and from the
 * next request until the run ends those tools ride every request. It is the loop's own tool,
 * never registered, so the registry (and its corpus vectors) stay as they are.
 */
import type { ToolCall, ToolResult } from '../message.js';
import type { ToolSchema } from '../registry/schema.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { Selection } from '../select/apply-selection.js';
import { MAX_SEARCH_QUERY_CHARS, searchTools } from '../select/search-tools.js';
import { copyNameRecord } from '../registry/name-record.js';
import type { AsyncToolSelector } from '../select/selector.js';
import { errorMessage } from '../describe-error.js';

/** Options for `BareLoop.withToolSearch`. */
export interface ToolSearchOptions {
  /** Tools one search adds. Default 5. */
  k?: number;
}

/** The search tool's name. */
export const FIND_TOOLS = 'find_tools';

/**
 * The `find_tools` schema the model sees.
 *
 * @example
 * findToolsSchema().name // 'find_tools'
 */
export function findToolsSchema(): ToolSchema {
  return {
    name: FIND_TOOLS,
    description:
      'Search every available tool by what you need done. Call this when none of the tools you were offered fits the task; ' +
      'the tools it finds can be called from your next step.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What the tool should do, in a few words.' } },
      required: ['query'],
      additionalProperties: false,
    },
  };
}

/**
 * One run's tool search: the tools found so far, the widened surface, the handler.
 *
 * @example
 * const search = new ToolSearch({ k: 5 }, selector)
 * const selection = search.widen(applySelection(output, all), all)
 * const result = await search.handle(call, all, signal)
 */
export class ToolSearch {
  readonly k: number;
  readonly #selector: AsyncToolSelector | undefined;
  readonly #schema = findToolsSchema();
  readonly #found = new Set<string>();

  constructor(options: ToolSearchOptions, selector: AsyncToolSelector | undefined) {
    const k = options.k ?? 5;
    if (!(Number.isInteger(k) && k > 0)) throw new RangeError(`toolSearch k must be a positive integer, got ${k}`);
    this.k = k;
    this.#selector = selector;
  }

  /** The search tool's name on the wire (`find_tools`). */
  readonly toolName = FIND_TOOLS;

  /** Tool names found so far this run. */
  get found(): readonly string[] {
    return [...this.#found];
  }

  /**
   * The turn's surface: the selection, plus every tool found so far, plus `find_tools`
   * itself (last). Found tools carry `{ parts: { search: 1 } }` as their reason.
   */
  widen<S extends Selection>(selection: S, all: readonly ToolSchema[]): S {
    const advertised = new Set(selection.names);
    const found = all.filter((tool) => this.#found.has(tool.name) && !advertised.has(tool.name));
    const names = new Set([...selection.names, ...found.map((tool) => tool.name)]);
    const tools = [...all.filter((tool) => names.has(tool.name)), this.#schema];
    const reasons = copyNameRecord(selection.reasons);
    for (const tool of found) reasons[tool.name] = { parts: { search: 1 } };
    reasons[FIND_TOOLS] = { core: true };
    return { ...selection, tools, names: tools.map((tool) => tool.name), reasons };
  }

  /**
   * The registry as this turn's dispatch sees it: `find_tools` calls answered by the search
   * (which skips the tools on offer, `advertised`), every other call by the registry.
   */
  dispatcher(
    registry: Pick<ToolRegistry, 'has' | 'dispatch'>,
    all: readonly ToolSchema[],
    advertised: readonly string[],
  ): Pick<ToolRegistry, 'has' | 'dispatch'> {
    const offered = new Set(advertised);
    return {
      has: (name) => name === FIND_TOOLS || registry.has(name),
      dispatch: (call, options) =>
        call.name === FIND_TOOLS ? this.handle(call, all, offered, options?.signal ?? new AbortController().signal) : registry.dispatch(call, options),
    };
  }

  /**
   * Run one `find_tools` call. Never throws: a bad query or a failing search is an error
   * result (the run continues); an abort is the caller's to notice.
   */
  async handle(call: ToolCall, all: readonly ToolSchema[], advertised: ReadonlySet<string>, signal: AbortSignal): Promise<ToolResult> {
    const fail = (content: string): ToolResult => ({ toolCallId: call.id, name: call.name, content, isError: true });
    let query: unknown;
    try {
      query = (JSON.parse(call.arguments || '{}') as { query?: unknown }).query;
    } catch {
      return fail('find_tools: arguments must be JSON like {"query": "what the tool should do"}');
    }
    if (typeof query !== 'string' || query.trim() === '') return fail('find_tools needs a non-empty "query" string');
    const text = query.trim().slice(0, MAX_SEARCH_QUERY_CHARS);
    let ranked: string[];
    try {
      ranked = await this.#rank(text, all, advertised, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return fail(`find_tools failed: ${errorMessage(error)}`);
    }
    if (ranked.length === 0) return { toolCallId: call.id, name: call.name, content: `No tools match "${text}".`, isError: false };
    for (const name of ranked) this.#found.add(name);
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const lines = ranked.map((name) => `- ${name}: ${summary(byName.get(name)?.description ?? '')}`);
    return {
      toolCallId: call.id,
      name: call.name,
      content: `Found ${ranked.length} tool${ranked.length === 1 ? '' : 's'}, available from your next step:\n${lines.join('\n')}`,
      isError: false,
    };
  }

  // The loop's selector ranks the whole registry for the query (BM25 where it cannot), minus
  // the tools already on offer: the one search every door shares.
  async #rank(query: string, all: readonly ToolSchema[], advertised: ReadonlySet<string>, signal: AbortSignal): Promise<string[]> {
    const exclude = new Set([...advertised, FIND_TOOLS]);
    const hits = await searchTools(query, all, { selector: this.#selector, k: this.k, exclude, signal });
    return hits.map((hit) => hit.name);
  }
}

/** A description's first sentence, one line, at most 120 characters. */
function summary(description: string): string {
  const line = description.replace(/\s+/g, ' ').trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length > 120 ? `${sentence.slice(0, 117)}...` : sentence || '(no description)';
}
