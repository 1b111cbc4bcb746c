/**
 * `loopctl/openai-agents`: loopctl's ranking as the search of the OpenAI Agents SDK's
 * client-executed tool search (`@openai/agents` ≥ 0.20: `toolSearchTool({ execution: 'client',
 * execute })`). Function tools marked `deferLoading: true` stay out of the prompt; the model's
 * `tool_search_call` reaches this executor, which ranks the deferred tools for the query and
 * returns the ones to load. Structural types: nothing here imports the SDK.
 */
import { errorMessage } from '../describe-error.js';
import type { ToolSchema } from '../registry/schema.js';
import {
  checkK,
  type QuerySchema,
  queryOf,
  querySchema,
  rankNames,
  SEARCH_DESCRIPTION,
  type ToolSearchAdapterOptions,
} from './search-door.js';

/** An Agents SDK tool as the executor reads it (function tools carry name, description, parameters). */
export interface AgentsTool {
  readonly type: string;
  readonly name: string;
  readonly description?: string;
  readonly parameters?: unknown;
  readonly deferLoading?: boolean;
}

/** What the SDK passes a client tool search executor (the parts read here). */
export interface AgentsSearchArgs<T> {
  readonly availableTools: T[];
  readonly toolCall: { readonly arguments: unknown };
}

/** Options for {@link agentsToolSearch}. */
export interface AgentsToolSearchOptions extends ToolSearchAdapterOptions {
  readonly description?: string;
  /** Told why a search loaded nothing because its input was bad or the ranking failed. */
  readonly onError?: (message: string) => void;
}

/** The options `toolSearchTool()` takes for a client-executed search ranked by loopctl. */
export interface AgentsToolSearch {
  readonly execution: 'client';
  readonly description: string;
  readonly parameters: QuerySchema;
  execute<T extends AgentsTool>(args: AgentsSearchArgs<T>): Promise<T[]>;
}

/**
 * Options for the Agents SDK's `toolSearchTool()`: a client-executed search over the agent's
 * deferred function tools, ranked by a loopctl selector (BM25 without one). A missing or blank
 * query, or a failing ranking, loads no tools (`onError` hears why).
 *
 * @example
 * import { Agent, run, tool } from '@openai/agents'
 * import { toolSearchTool } from '@openai/agents-openai'
 * import { agentsToolSearch } from 'loopctl/openai-agents'
 *
 * const agent = new Agent({
 *   name: 'assistant',
 *   tools: [toolSearchTool(agentsToolSearch({ selector: hybrid })), tool({ name: 'send_email', deferLoading: true, ... })],
 * })
 * await run(agent, 'Email Kim the report')
 */
export function agentsToolSearch(options: AgentsToolSearchOptions = {}): AgentsToolSearch {
  checkK(options.k);
  return {
    execution: 'client',
    description: options.description ?? SEARCH_DESCRIPTION,
    parameters: querySchema(),
    async execute({ availableTools, toolCall }) {
      const query = queryOf(parsed(toolCall.arguments));
      if (typeof query !== 'string') {
        options.onError?.(query.error);
        return [];
      }
      const deferred = availableTools.filter(
        (tool) => tool.type === 'function' && tool.deferLoading === true && typeof tool.name === 'string',
      );
      const schemas: ToolSchema[] = deferred.map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        parameters: (tool.parameters ?? {}) as ToolSchema['parameters'],
      }));
      try {
        const names = await rankNames(query, schemas, options);
        const byName = new Map(deferred.map((tool) => [tool.name, tool]));
        return names.flatMap((name) => byName.get(name) ?? []);
      } catch (error) {
        options.onError?.(`tool search failed: ${errorMessage(error)}`);
        return [];
      }
    },
  };
}

/** The SDK may pass the arguments as JSON text or as an object. */
function parsed(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args);
  } catch {
    return undefined;
  }
}
