/**
 * The Anthropic Messages half of request parsing: `tools` entries (custom tools
 * `{ name, description, input_schema, cache_control?, defer_loading? }`; server tools such as
 * `{ type: 'web_search_20250305', name }` and typed entries without a name such as
 * `{ type: 'mcp_toolset', mcp_server_name }` are kept, never ranked), `tool_choice`
 * (`{ type: 'auto' | 'any' | 'none' }` or `{ type: 'tool', name }`) and the calls already made
 * (assistant `tool_use` / `server_tool_use` blocks).
 */

import type { Json } from './json-value.js';
import { isObject } from './json-value.js';
import { anthropicSelectionQuery } from './latest-user-text.js';
import type { ClientTool, ToolChoice, WireDialect } from './proxy-protocol.js';
import { ProxyRequestError } from './request-error.js';

/**
 * Anthropic's request dialect.
 *
 * @example
 * anthropicDialect.toolChoice({ tool_choice: { type: 'tool', name: 'get_weather' } }) // { kind: 'named', names: ['get_weather'], required: true }
 */
export const anthropicDialect: WireDialect = {
  tool(entry, index): Omit<ClientTool, 'span'> {
    if (!isObject(entry)) throw new ProxyRequestError(400, `tools.${index}: must be an object`, `tools.${index}`);
    const name = entry.name;
    const typed = typeof entry.type === 'string' && entry.type !== 'custom';
    // A typed entry may have no name (`mcp_toolset`, computer/browser toolsets): valid, kept as is.
    if (typed && name === undefined)
      return {
        name: '',
        selectable: false,
        deferred: false,
        schema: undefined,
        cacheControl: entry.cache_control ?? undefined,
      };
    if (typeof name !== 'string' || name === '')
      throw new ProxyRequestError(400, `tools.${index}.name: Field required`, `tools.${index}.name`);
    const deferred = entry.defer_loading === true;
    const selectable = !typed && isObject(entry.input_schema) && !deferred;
    return {
      name,
      selectable,
      deferred,
      schema: selectable
        ? {
            name,
            description: typeof entry.description === 'string' ? entry.description : '',
            parameters: entry.input_schema as Json,
          }
        : undefined,
      cacheControl: entry.cache_control ?? undefined,
    };
  },

  toolChoice(body): ToolChoice {
    const choice = body.tool_choice;
    if (!isObject(choice)) return { kind: 'auto' };
    if (choice.type === 'any') return { kind: 'required' };
    if (choice.type === 'none') return { kind: 'none' };
    if (choice.type === 'tool' && typeof choice.name === 'string')
      return { kind: 'named', names: [choice.name], required: true };
    return { kind: 'auto' };
  },

  calledTools(body): Set<string> {
    const called = new Set<string>();
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!isObject(message) || message.role !== 'assistant' || !Array.isArray(message.content)) continue;
      for (const block of message.content) {
        if (
          isObject(block) &&
          (block.type === 'tool_use' || block.type === 'server_tool_use') &&
          typeof block.name === 'string'
        ) {
          called.add(block.name);
        }
      }
    }
    return called;
  },

  conversationKey: 'messages',
  context: anthropicSelectionQuery,
};
