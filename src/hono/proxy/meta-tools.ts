/**
 * The two tools the proxy adds when it keeps part of a registry back and answers the model's
 * search itself (server-side tool search, for upstreams without a native one):
 *
 * - `find_tools({ query })`: the proxy ranks every tool the client sent through the one search
 *   function (`searchTools`, with the request's selector) and answers with the best matches.
 * - `call_tool({ name, arguments })` (stable policy only): calls a found tool without declaring
 *   it, so the forwarded `tools` array, and the cached prefix behind it, never change within a
 *   conversation. The client sees an ordinary call of `name`.
 *
 * The names give way to the client's own: a client tool already called `find_tools` makes the
 * proxy's `loopctl_find_tools` (then `loopctl_find_tools_2`, …). The same tools give the same
 * names on every request, so any isolate derives the same surface.
 */
import type { ToolSchema } from '../../registry/schema.js';
import type { ProxyProtocol } from './proxy-protocol.js';

/** The names the proxy's tools go by in one request. */
export interface MetaNames {
  readonly search: string;
  /** Undefined when found tools are declared instead (per-message policy). */
  readonly call: string | undefined;
}

/** Found tools to list per search. */
export const SEARCH_RESULTS = 5;

// Short on purpose: these ride every request that keeps tools back.
const SEARCH_DESCRIPTION = 'More tools exist than are listed. Find one by describing the action you need.';
const SEARCH_DESCRIPTION_CALL = `${SEARCH_DESCRIPTION} Call what it finds with the call tool.`;
const SEARCH_PARAMETERS = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
const CALL_DESCRIPTION = 'Call a tool the search found, with the arguments its parameters describe.';
const CALL_PARAMETERS = {
  type: 'object',
  properties: { name: { type: 'string' }, arguments: { type: 'object' } },
  required: ['name', 'arguments'],
};

/**
 * Names for the proxy's tools that no client tool already has.
 *
 * @example
 * metaNames(new Set(['find_tools']), true) // { search: 'loopctl_find_tools', call: 'call_tool' }
 */
export function metaNames(taken: ReadonlySet<string>, withCall: boolean): MetaNames {
  const free = (base: string): string => {
    if (!taken.has(base)) return base;
    for (let n = 1; ; n++) {
      const name = n === 1 ? `loopctl_${base}` : `loopctl_${base}_${n}`;
      if (!taken.has(name)) return name;
    }
  };
  return { search: free('find_tools'), call: withCall ? free('call_tool') : undefined };
}

/**
 * The `tools` entries of the proxy's tools in `protocol`'s shape, as JSON texts.
 *
 * @example
 * metaEntries(anthropicMessages, { search: 'find_tools', call: undefined }) // ['{"name":"find_tools","description":…,"input_schema":…}']
 */
export function metaEntries(protocol: ProxyProtocol, names: MetaNames): string[] {
  const tools: ToolSchema[] = [
    {
      name: names.search,
      description: names.call ? SEARCH_DESCRIPTION_CALL.replace('the call tool', names.call) : SEARCH_DESCRIPTION,
      parameters: SEARCH_PARAMETERS,
    },
  ];
  if (names.call) tools.push({ name: names.call, description: CALL_DESCRIPTION, parameters: CALL_PARAMETERS });
  return tools.map((tool) => JSON.stringify(protocol.toolEntry(tool)));
}

/**
 * What the proxy answers a search with: the found tools (with their parameters when they are
 * to be called through `call`), or a hint when nothing matched.
 *
 * @example
 * searchResult([weather], 'call_tool') // '{"tools":[{"name":"get_weather",…}],"call_with":"call_tool"}'
 */
export function searchResult(found: readonly ToolSchema[], call: string | undefined): string {
  if (found.length === 0)
    return JSON.stringify({ tools: [], note: 'No tool matched. Try other words, or answer without a tool.' });
  const tools = found.map((tool) =>
    call
      ? { name: tool.name, description: tool.description, parameters: tool.parameters }
      : { name: tool.name, description: tool.description },
  );
  return JSON.stringify(
    call ? { tools, call_with: call } : { tools, note: 'These tools are now available: call them directly.' },
  );
}

/** The line that introduces a tail reveal (what `revealText` writes). */
export const REVEAL_LEAD = '[loopctl] More tools for this request, called through';

/**
 * The stable policy's tail reveal: the tools the latest user message selects that the loaded
 * set lacks, with their parameters, listed after the last message (where the cached prefix
 * ends) so the model can call them through `call` without a search round.
 *
 * @example
 * revealText([weather], 'call_tool') // '[loopctl] More tools for this request, called through call_tool: {"tools":[…],"call_with":"call_tool"}'
 */
export function revealText(found: readonly ToolSchema[], call: string): string {
  return `${REVEAL_LEAD} ${call}: ${searchResult(found, call)}`;
}
