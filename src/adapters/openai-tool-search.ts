/**
 * `loopctl/openai`: loopctl's ranking as the client-executed `tool_search` of the OpenAI
 * Responses API (`openai` SDK, or any client of the protocol). Function tools you do not load
 * ride with `defer_loading: true`; the model emits a `tool_search_call`; the handler answers
 * with a `tool_search_output` carrying the found tools' definitions, which the API injects at
 * the end of the context (the cached prefix holds). Structural types: nothing here imports the SDK.
 */
import {
  checkK,
  deferUnloaded,
  type QuerySchema,
  queryOf,
  querySchema,
  SEARCH_DESCRIPTION,
  searchDeclared,
  type ToolSearchAdapterOptions,
} from './search-door.js';

/** A function tool as the Responses API declares it (other fields pass through). */
export interface ResponsesFunctionDefinition {
  readonly type: 'function';
  readonly name: string;
  readonly description?: string | null;
  readonly parameters: unknown;
  readonly defer_loading?: boolean;
}

/** The `tool_search_call` output item the model sent. */
export interface ResponsesSearchCall {
  readonly type: 'tool_search_call';
  readonly call_id: string | null;
  readonly arguments: unknown;
  readonly execution?: 'server' | 'client';
}

/** The `tool_search_output` input item that answers it. */
export interface ResponsesSearchOutput<T> {
  readonly type: 'tool_search_output';
  readonly call_id: string | null;
  readonly execution: 'client';
  readonly status: 'completed';
  readonly tools: T[];
}

/** The client-executed search tool, the deferred declaration, and the handler for its calls. */
export interface ResponsesToolSearch {
  /** The `tool_search` tool, executed by the client. */
  readonly tool: {
    readonly type: 'tool_search';
    readonly execution: 'client';
    readonly description: string;
    readonly parameters: QuerySchema;
  };
  /** `all` with every function not named in `loaded` marked `defer_loading: true`, then the search tool. */
  tools<T extends { readonly type: string; readonly name?: string }>(
    all: readonly T[],
    loaded: Iterable<string>,
  ): (T | ResponsesToolSearch['tool'])[];
  /**
   * Answer one `tool_search_call`: ranks the request's deferred functions (`tools`, as sent)
   * and returns their definitions (without `defer_loading`). The output item has no error
   * field: a missing or blank query, or no match, loads no tools; `onError` hears why.
   */
  handle<T extends { readonly type: string }>(
    call: ResponsesSearchCall,
    tools: readonly T[],
    signal?: AbortSignal,
  ): Promise<ResponsesSearchOutput<Omit<Extract<T, ResponsesFunctionDefinition>, 'defer_loading'>>>;
}

/** Options for {@link responsesToolSearch}. */
export interface ResponsesToolSearchOptions extends ToolSearchAdapterOptions {
  readonly description?: string;
  /** Told why a search loaded nothing because its input was bad or the ranking failed. */
  readonly onError?: (message: string) => void;
}

/**
 * loopctl's ranking as a Responses API client-executed `tool_search`.
 *
 * @example
 * import OpenAI from 'openai'
 * import { responsesToolSearch } from 'loopctl/openai'
 *
 * const search = responsesToolSearch({ selector: hybrid })
 * const tools = search.tools(functions, ['get_weather'])
 * const response = await openai.responses.create({ model, input, tools })
 * for (const item of response.output) {
 *   if (item.type === 'tool_search_call') input.push(item, await search.handle(item, tools))
 * }
 */
export function responsesToolSearch(options: ResponsesToolSearchOptions = {}): ResponsesToolSearch {
  checkK(options.k);
  const tool = {
    type: 'tool_search',
    execution: 'client',
    description: options.description ?? SEARCH_DESCRIPTION,
    parameters: querySchema(),
  } as const;
  return {
    tool,
    tools: (all, loaded) => deferUnloaded(all, loaded, tool),
    async handle<T extends { readonly type: string }>(
      call: ResponsesSearchCall,
      tools: readonly T[],
      signal?: AbortSignal,
    ) {
      const output = <U>(found: U[]) => ({
        type: 'tool_search_output' as const,
        call_id: call.call_id,
        execution: 'client' as const,
        status: 'completed' as const,
        tools: found,
      });
      const query = queryOf(call.arguments);
      if (typeof query !== 'string') {
        options.onError?.(query.error);
        return output([]);
      }
      const deferred = tools.filter((t): t is Extract<T, ResponsesFunctionDefinition> => isDeferredFunction(t));
      const found = await searchDeclared(query, deferred, (t) => t.parameters, options, signal);
      if ('error' in found) {
        options.onError?.(found.error);
        return output([]);
      }
      const { names } = found;
      const byName = new Map(deferred.map((t) => [t.name, t]));
      return output(
        names.flatMap((name) => {
          const found = byName.get(name);
          if (!found) return [];
          const { defer_loading: _, ...loaded } = found;
          return [loaded];
        }),
      );
    },
  };
}

function isDeferredFunction(tool: { readonly type: string }): boolean {
  const fn = tool as Partial<ResponsesFunctionDefinition>;
  return fn.type === 'function' && typeof fn.name === 'string' && fn.defer_loading === true;
}
