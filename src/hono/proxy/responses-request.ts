/**
 * The OpenAI Responses half of request parsing: `tools` entries (function tools
 * `{ type: 'function', name, description, parameters, defer_loading? }`; hosted tools such as
 * `web_search`, `file_search`, `mcp` and `tool_search` are kept, never ranked), `tool_choice`
 * (`'auto' | 'none' | 'required'`, `{ type: 'function', name }`,
 * `{ type: 'allowed_tools', mode, tools }`) and the calls already made (`function_call` items).
 */

import { isObject } from './json-value.js';
import { responsesSelectionQuery } from './latest-user-text.js';
import { allowedToolNames, toolNameOf } from './openai-request.js';
import type { ClientTool, ToolChoice, WireDialect } from './proxy-protocol.js';
import { ProxyRequestError } from './request-error.js';

/**
 * The Responses request dialect.
 *
 * @example
 * responsesDialect.tool({ type: 'function', name: 'get_weather', parameters: {} }, 0).name // 'get_weather'
 */
export const responsesDialect: WireDialect = {
  tool(entry, index): Omit<ClientTool, 'span'> {
    if (!isObject(entry)) throw new ProxyRequestError(400, `tools[${index}] must be an object`, `tools[${index}]`);
    const isFunction = entry.type === 'function';
    const name = entry.name;
    if (!isFunction) {
      if (typeof entry.type !== 'string')
        throw new ProxyRequestError(400, `tools[${index}].type is required`, `tools[${index}].type`);
      return {
        name: typeof name === 'string' ? name : '',
        selectable: false,
        deferred: false,
        schema: undefined,
        cacheControl: undefined,
      };
    }
    if (typeof name !== 'string' || name === '')
      throw new ProxyRequestError(400, `tools[${index}].name is required`, `tools[${index}].name`);
    const deferred = entry.defer_loading === true;
    return {
      name,
      selectable: !deferred,
      deferred,
      schema: deferred
        ? undefined
        : {
            name,
            description: typeof entry.description === 'string' ? entry.description : '',
            parameters: isObject(entry.parameters) ? entry.parameters : {},
          },
      cacheControl: undefined,
    };
  },

  toolChoice(body): ToolChoice {
    const choice = body.tool_choice;
    if (choice === 'none' || choice === 'required') return { kind: choice };
    if (!isObject(choice)) return { kind: 'auto' };
    if (choice.type === 'allowed_tools')
      return { kind: 'allowed', names: allowedToolNames(choice.tools), required: choice.mode === 'required' };
    if (choice.type === 'function' && typeof choice.name === 'string')
      return { kind: 'named', names: [choice.name], required: true };
    const name = toolNameOf(choice);
    return typeof name === 'string' && choice.type === 'function'
      ? { kind: 'named', names: [name], required: true }
      : { kind: 'auto' };
  },

  calledTools(body): Set<string> {
    const called = new Set<string>();
    for (const item of Array.isArray(body.input) ? body.input : []) {
      if (isObject(item) && item.type === 'function_call' && typeof item.name === 'string') called.add(item.name);
    }
    return called;
  },

  conversationKey: 'input',
  context: responsesSelectionQuery,
};
