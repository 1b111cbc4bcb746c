/**
 * `loopctl/anthropic`: loopctl's ranking as your own tool search on the Anthropic Messages
 * API (`@anthropic-ai/sdk`, or any client of the protocol). The tools you do not load ride
 * with `defer_loading: true`; the model calls the search tool; its `tool_result` answers with
 * `tool_reference` blocks, which load those tools where the reference sits (the cached prompt
 * prefix holds). The shapes are the protocol's, written structurally: nothing here imports
 * the SDK.
 */
import {
  checkK,
  type QuerySchema,
  queryOf,
  querySchema,
  SEARCH_DESCRIPTION,
  searchDeclared,
  type ToolSearchAdapterOptions,
} from './search-door.js';

/** A custom tool as the Messages API declares it (other fields pass through). */
export interface AnthropicToolDefinition {
  readonly name: string;
  readonly description?: string;
  readonly input_schema: unknown;
  readonly defer_loading?: boolean;
  readonly type?: string | null;
}

/** The `tool_use` block the model sent. */
export interface AnthropicToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** The `tool_result` block that answers it. */
export interface AnthropicSearchResult {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content: string | { readonly type: 'tool_reference'; readonly tool_name: string }[];
  readonly is_error?: true;
}

/** Options for {@link anthropicToolSearch}. */
export interface AnthropicToolSearchOptions extends ToolSearchAdapterOptions {
  /** The search tool's name. Default `find_tools`. */
  readonly name?: string;
  readonly description?: string;
}

/** The search tool, how to declare the rest deferred, and the handler for its calls. */
export interface AnthropicToolSearch {
  /** The search tool's definition (never deferred). */
  readonly tool: { readonly name: string; readonly description: string; readonly input_schema: QuerySchema };
  /**
   * `all` with every tool not named in `loaded` marked `defer_loading: true`, then the search
   * tool. At least the search tool stays loaded, which the API requires.
   */
  tools<T extends AnthropicToolDefinition>(
    all: readonly T[],
    loaded: Iterable<string>,
  ): (T | AnthropicToolSearch['tool'])[];
  /** Whether a `tool_use` block is a call of this search. */
  handles(toolUse: { readonly name: string }): boolean;
  /**
   * Answer one call of the search: ranks the request's deferred tools (`tools`, as sent) for
   * the query and answers with `tool_reference` blocks. Never throws for the model's sake: a
   * missing or blank query is an error result, no match a text result.
   */
  handle(
    toolUse: AnthropicToolUse,
    tools: readonly AnthropicToolDefinition[],
    signal?: AbortSignal,
  ): Promise<AnthropicSearchResult>;
}

/**
 * loopctl's ranking as an Anthropic tool search: a search tool, the deferred declaration, and
 * a handler answering with `tool_reference` blocks.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk'
 * import { anthropicToolSearch } from 'loopctl/anthropic'
 *
 * const search = anthropicToolSearch({ selector: hybrid })
 * const tools = search.tools(allTools, ['get_weather'])
 * const reply = await anthropic.messages.create({ model, max_tokens: 1024, tools, messages })
 * for (const block of reply.content) {
 *   if (block.type === 'tool_use' && search.handles(block)) results.push(await search.handle(block, tools))
 * }
 */
export function anthropicToolSearch(options: AnthropicToolSearchOptions = {}): AnthropicToolSearch {
  checkK(options.k);
  const tool = {
    name: options.name ?? 'find_tools',
    description: options.description ?? SEARCH_DESCRIPTION,
    input_schema: querySchema(),
  };
  return {
    tool,
    tools(all, loaded) {
      const keep = new Set(loaded);
      return [
        ...all.filter((t) => t.name !== tool.name).map((t) => (keep.has(t.name) ? t : { ...t, defer_loading: true })),
        tool,
      ];
    },
    handles: (toolUse) => toolUse.name === tool.name,
    async handle(toolUse, tools, signal) {
      const fail = (content: string): AnthropicSearchResult => ({
        type: 'tool_result',
        tool_use_id: toolUse.id,
        content,
        is_error: true,
      });
      if (toolUse.name !== tool.name) return fail(`${toolUse.name} is not the tool search (${tool.name})`);
      const query = queryOf(toolUse.input);
      if (typeof query !== 'string') return fail(query.error);
      const deferred = tools.filter((t) => t.defer_loading === true && typeof t.name === 'string');
      const found = await searchDeclared(query, deferred, (t) => t.input_schema, options, signal);
      if ('error' in found) return fail(found.error);
      const { names } = found;
      if (names.length === 0)
        return { type: 'tool_result', tool_use_id: toolUse.id, content: `No tools match "${query}".` };
      return {
        type: 'tool_result',
        tool_use_id: toolUse.id,
        content: names.map((name) => ({ type: 'tool_reference', tool_name: name })),
      };
    },
  };
}
