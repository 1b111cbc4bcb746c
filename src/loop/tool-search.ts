/**
 * `find_tools`: a way back after a selection miss. The loop advertises one extra tool whose
 * description tells the model to call it when none of the offered tools fits; its handler
 * ranks the whole registry for the model's query (with the loop's own selector, or BM25 where
 * that cannot rank), answers with the top names and a one-line summary each, and from the
 * next request until the run ends those tools ride every request. It is the loop's own tool,
 * never registered, so the registry (and its corpus vectors) stay as they are.
 */

import { errorMessage } from '../describe-error.js';
import type { Message, ProviderContent, ToolCall, ToolResult } from '../message.js';
import type { HostedToolSearch, ModelRequest } from '../model/client.js';
import { copyNameRecord } from '../registry/name-record.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { ToolSchema } from '../registry/schema.js';
import type { Selection } from '../select/apply-selection.js';
import type { RunSelectionResult } from '../select/run-selection.js';
import { MAX_SEARCH_QUERY_CHARS, searchTools } from '../select/search-tools.js';
import type { AsyncToolSelector, SelectionContext } from '../select/selector.js';

/** Options for `BareLoop.withToolSearch`. */
export interface ToolSearchOptions {
  /** Tools one search adds. Default 5. */
  k?: number;
  /**
   * Deferred loading. The selector's pick becomes the run's *loaded* tools (rendered, counted,
   * callable), chosen once for the conversation's opening prompt so the prompt prefix holds
   * from turn to turn; every other tool is *deferred*: declared with `defer_loading` where the
   * protocol has it (Anthropic Messages, OpenAI Responses), kept back where it has not (Chat
   * Completions), and reachable through search. A tool a search returns is *revealed*: callable
   * from the next request on, counted from the request it rides. Default false: `find_tools`
   * widens a per-turn selection instead.
   */
  deferred?: boolean;
  /**
   * In deferred mode, search with the provider's own tool (Anthropic's BM25 or regex search)
   * instead of `find_tools`. A client without it falls back to `find_tools`, with a warning.
   */
  hosted?: HostedToolSearch;
}

/** The search tool's name. */
export const FIND_TOOLS = 'find_tools';

/** The three sets a deferred-mode request is built from, as events report them. */
export interface ToolSurface {
  /** The selector's pick: rendered in the prompt and counted (the loop's search tool rides beside them). */
  readonly loaded: readonly string[];
  /** Deferred tools a search returned in this conversation: callable, counted from the request they ride. */
  readonly revealed: readonly string[];
  /** How many tools are deferred and not revealed (they cost nothing): registered − loaded − revealed. */
  readonly deferred: number;
}

/** A warning the loop emits (each said once per run). */
export interface SurfaceWarning {
  readonly code: string;
  readonly message: string;
}

/** The registry registry calls go through on one turn, and the surface they are checked against. */
export interface TurnDispatch {
  readonly registry: Pick<ToolRegistry, 'has' | 'dispatch'>;
  readonly selection: Selection;
}

/** Runs the loop's selection for this turn; `ctx` replaces parts of the turn's own context. */
export type SelectTurn = (ctx?: Partial<SelectionContext>) => Promise<RunSelectionResult>;

/** One turn of a run with tool search: what it advertises, what goes on the wire, how calls are answered. */
export interface SearchTurn {
  /** What the turn advertises, as the estimate counts it. */
  readonly selection: RunSelectionResult;
  /** The request's rendered tools. */
  readonly wireTools: readonly ToolSchema[];
  /** Deferred mode on a protocol that has it: the deferred tools and how to search them. */
  readonly deferral?: Pick<ModelRequest, 'deferredTools' | 'toolSearch'>;
  /** Deferred mode: the loaded / revealed / deferred split. */
  readonly surface?: ToolSurface;
  readonly warnings: readonly SurfaceWarning[];
  /** The view as the wire carries it. */
  wireView(view: readonly Message[]): readonly Message[];
  /** This turn's dispatch, given the reply (a hosted search in it may have loaded tools). */
  dispatch(
    registry: Pick<ToolRegistry, 'has' | 'dispatch'>,
    reply: { readonly providerContent?: ProviderContent | undefined },
  ): TurnDispatch;
}

/** A run's tool search, as the loop drives it turn by turn (`find_tools` widening, or deferred loading). */
export interface SearchDoor {
  turn(all: readonly ToolSchema[], conversation: readonly Message[], select: SelectTurn): Promise<SearchTurn>;
}

/** The registry holds its own `find_tools`: it wins, and the loop's search is off. */
export function shadowWarning(all: readonly ToolSchema[]): SurfaceWarning | undefined {
  return all.some((tool) => tool.name === FIND_TOOLS)
    ? { code: 'tool_search', message: `the registry has its own ${FIND_TOOLS}, so the loop's tool search is off` }
    : undefined;
}

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
export class ToolSearch implements SearchDoor {
  readonly k: number;
  readonly #selector: AsyncToolSelector | undefined;
  readonly #schema = findToolsSchema();
  readonly #found = new Set<string>();
  #shadowSaid = false;

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

  /** One turn: the selection widened with what was found (or as it is, when the registry has its own find_tools). */
  async turn(all: readonly ToolSchema[], _conversation: readonly Message[], select: SelectTurn): Promise<SearchTurn> {
    const selected = await select();
    const shadow = shadowWarning(all);
    const warnings = shadow && !this.#shadowSaid ? [shadow] : [];
    this.#shadowSaid ||= shadow !== undefined;
    const selection = shadow ? selected : this.widen(selected, all);
    return {
      selection,
      wireTools: selection.tools,
      warnings,
      wireView: (view) => view,
      dispatch: (registry) => ({
        registry: shadow ? registry : this.dispatcher(registry, all, selection.names),
        selection,
      }),
    };
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
        call.name === FIND_TOOLS
          ? this.handle(call, all, offered, options?.signal ?? new AbortController().signal)
          : registry.dispatch(call, options),
    };
  }

  /**
   * Run one `find_tools` call over `all`, skipping the names in `skip` (the tools on offer).
   * Never throws: a bad query or a failing search is an error result (the run continues); an
   * abort is the caller's to notice. The found names ride the result as `references`.
   */
  async handle(
    call: ToolCall,
    all: readonly ToolSchema[],
    skip: ReadonlySet<string>,
    signal: AbortSignal,
  ): Promise<ToolResult> {
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
      ranked = await this.#rank(text, all, skip, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return fail(`find_tools failed: ${errorMessage(error)}`);
    }
    if (ranked.length === 0)
      return { toolCallId: call.id, name: call.name, content: `No tools match "${text}".`, isError: false };
    for (const name of ranked) this.#found.add(name);
    const byName = new Map(all.map((tool) => [tool.name, tool]));
    const lines = ranked.map((name) => `- ${name}: ${summary(byName.get(name)?.description ?? '')}`);
    return {
      toolCallId: call.id,
      name: call.name,
      content: `Found ${ranked.length} tool${ranked.length === 1 ? '' : 's'}, available from your next step:\n${lines.join('\n')}`,
      isError: false,
      references: ranked,
    };
  }

  // The loop's selector ranks the whole registry for the query (BM25 where it cannot), minus
  // the tools already on offer: the one search every door shares.
  async #rank(
    query: string,
    all: readonly ToolSchema[],
    skip: ReadonlySet<string>,
    signal: AbortSignal,
  ): Promise<string[]> {
    const exclude = new Set([...skip, FIND_TOOLS]);
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
