/**
 * `loopctl/gemini`: loopctl's ranking as the client-executed `tool_search` of Gemini's Tool
 * Retrieval (the Interactions API, `POST /{version}/interactions`; `@google/genai`, or any client
 * of the protocol). Function tools you do not load ride with `defer_loading: true`; the model
 * still sees their names and descriptions, not their parameters. With `execution: 'client'` the
 * model's search arrives as a `tool_search_call` step (the interaction stops `requires_action`);
 * the handler answers with a `tool_search_result` step carrying the found functions'
 * definitions, which the model can call from its next step.
 *
 * Followed: Google's "Introducing Tool Retrieval in the Gemini API" (preview, 2026-11-19) and
 * the Interactions types of `@google/genai` 3.6.1 (`ToolSearch`, `FunctionT.defer_loading`,
 * `ToolSearchCallStep`, `ToolSearchResultStep`), which are the ground truth for field names.
 * The hosted search's own argument is `function_names` (the model asks for tools by name, having
 * seen the names); this search takes those too, beside a free-text `query` loopctl ranks.
 * Structural types: nothing here imports the SDK.
 */
import {
  checkK,
  deferUnloaded,
  queryOf,
  SEARCH_DESCRIPTION,
  searchDeclared,
  type ToolSearchAdapterOptions,
} from './search-door.js';

/** A function tool as the Interactions API declares it (other fields pass through). */
export interface GeminiFunctionTool {
  readonly type: 'function';
  readonly name?: string | undefined;
  readonly description?: string | undefined;
  readonly parameters?: unknown;
  readonly defer_loading?: boolean | undefined;
}

/** The `tool_search_call` step the model sent (its `arguments` are this search's parameters). */
export interface GeminiSearchCall {
  readonly type: 'tool_search_call';
  readonly id: string;
  readonly arguments?: unknown;
}

/** The `tool_search_result` step that answers it: the found functions' definitions. */
export interface GeminiSearchResult<T> {
  readonly type: 'tool_search_result';
  readonly call_id: string;
  readonly result: T[];
}

/** The JSON Schema of this search's arguments: a query to rank, or names to load. */
export type GeminiSearchSchema = {
  type: 'object';
  properties: {
    query: { type: 'string'; description: string };
    function_names: { type: 'array'; items: { type: 'string' }; description: string };
  };
  additionalProperties: boolean;
};

/** Options for {@link geminiToolSearch}. */
export interface GeminiToolSearchOptions extends ToolSearchAdapterOptions {
  /** The search tool's name (client-side execution names it). Default `find_tools`. */
  readonly name?: string;
  readonly description?: string;
  /** Told why a search loaded less than asked: bad arguments, unknown names, a failed ranking. */
  readonly onError?: (message: string) => void;
}

/** The client-executed search tool, the deferred declaration, and the handler for its calls. */
export interface GeminiToolSearch {
  /** The `tool_search` tool, executed by the client. */
  readonly tool: {
    readonly type: 'tool_search';
    readonly execution: 'client';
    readonly name: string;
    readonly description: string;
    readonly parameters: GeminiSearchSchema;
  };
  /** `all` with every function not named in `loaded` marked `defer_loading: true`, then the search tool. */
  tools<T extends { readonly type: string; readonly name?: string | undefined }>(
    all: readonly T[],
    loaded: Iterable<string>,
  ): (T | GeminiToolSearch['tool'])[];
  /** Whether a step is a call of this search (a request declares at most one `tool_search`). */
  handles(step: { readonly type: string }): step is GeminiSearchCall;
  /**
   * Answer one `tool_search_call`: the named deferred functions, then loopctl's ranking of the
   * rest for the query, as their definitions (without `defer_loading`). The step has no error
   * field: bad arguments, unknown names or no match load nothing more; `onError` hears why.
   */
  handle<T extends { readonly type: string }>(
    call: GeminiSearchCall,
    tools: readonly T[],
    signal?: AbortSignal,
  ): Promise<GeminiSearchResult<Omit<Extract<T, GeminiFunctionTool>, 'defer_loading'>>>;
}

/**
 * loopctl's ranking as Gemini's client-executed `tool_search` (Interactions API).
 *
 * @example
 * import { GoogleGenAI } from '@google/genai'
 * import { geminiToolSearch } from 'loopctl/gemini'
 *
 * const search = geminiToolSearch({ selector: hybrid })
 * const tools = search.tools(functions, ['get_weather'])
 * const interaction = await ai.interactions.create({ model, input: steps, tools })
 * for (const step of interaction.steps ?? []) {
 *   if (search.handles(step)) steps.push(step, await search.handle(step, tools))
 * }
 */
export function geminiToolSearch(options: GeminiToolSearchOptions = {}): GeminiToolSearch {
  checkK(options.k);
  const tool = {
    type: 'tool_search',
    execution: 'client',
    name: options.name ?? 'find_tools',
    description: options.description ?? SEARCH_DESCRIPTION,
    parameters: searchSchema(),
  } as const;
  return {
    tool,
    tools: (all, loaded) => deferUnloaded(all, loaded, tool),
    handles: (step): step is GeminiSearchCall => step.type === 'tool_search_call',
    async handle<T extends { readonly type: string }>(
      call: GeminiSearchCall,
      tools: readonly T[],
      signal?: AbortSignal,
    ) {
      type Found = Extract<T, GeminiFunctionTool> & { readonly name: string };
      const deferred = tools.filter((t): t is Found => isDeferredFunction(t));
      const asked = requestOf(call.arguments);
      for (const error of asked.errors) options.onError?.(error);
      const byName = new Map(deferred.map((t) => [t.name, t]));
      const unknown = asked.names.filter((name) => !byName.has(name));
      if (unknown.length > 0)
        options.onError?.(`no deferred tool named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`);
      const picked = new Set(asked.names.filter((name) => byName.has(name)));
      if (asked.query !== undefined) {
        const rest = deferred.filter((t) => !picked.has(t.name));
        const found = await searchDeclared(asked.query, rest, (t) => t.parameters, options, signal);
        if ('error' in found) options.onError?.(found.error);
        else for (const name of found.names) picked.add(name);
      }
      return {
        type: 'tool_search_result' as const,
        call_id: call.id,
        result: [...picked].map((name) => {
          const { defer_loading: _, ...definition } = byName.get(name) as Found;
          return definition;
        }),
      };
    },
  };
}

/** The search's parameters (a fresh copy each time: SDKs may keep and change it). */
function searchSchema(): GeminiSearchSchema {
  return {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What the tool should do, in a few words.' },
      function_names: {
        type: 'array',
        items: { type: 'string' },
        description: 'Names of deferred tools to load, when you already know which.',
      },
    },
    additionalProperties: false,
  };
}

// Gemini's own search asks by name; ours also ranks a query. Whatever part is well formed is
// served, so a bad query does not lose the names asked for beside it.
function requestOf(args: unknown): { names: string[]; query: string | undefined; errors: string[] } {
  const given = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  const raw = given.function_names;
  const errors: string[] = [];
  let names: string[] = [];
  if (Array.isArray(raw) && raw.every((name) => typeof name === 'string')) names = [...new Set(raw)];
  else if (raw !== undefined) errors.push('tool search "function_names" must be an array of tool names');
  if (given.query === undefined && names.length > 0) return { names, query: undefined, errors };
  const query = queryOf(args);
  if (typeof query === 'string') return { names, query, errors };
  errors.push(`${query.error}, or "function_names" listing the tools to load`);
  return { names, query: undefined, errors };
}

function isDeferredFunction(tool: { readonly type: string }): boolean {
  const fn = tool as Partial<GeminiFunctionTool>;
  return fn.type === 'function' && typeof fn.name === 'string' && fn.defer_loading === true;
}
