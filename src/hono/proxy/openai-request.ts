/**
 * The OpenAI Chat Completions half of request parsing: `tools` entries
 * (`{ type: 'function', function: { name, description, parameters } }`; other kinds are kept,
 * never ranked), `tool_choice` (`'auto' | 'none' | 'required'`,
 * `{ type: 'function', function: { name } }`, or `{ type: 'allowed_tools', allowed_tools: { mode, tools } }`)
 * and the calls already made (assistant `tool_calls`, legacy `function_call`).
 */

import type { Json } from './json-value.js';
import { isObject } from './json-value.js';
import { openAISelectionQuery } from './latest-user-text.js';
import type { ClientTool, ToolChoice, WireDialect } from './proxy-protocol.js';
import { ProxyRequestError } from './request-error.js';

/** A tool's name wherever its kind keeps it: `function.name`, `custom.name`, or `name`. */
export function toolNameOf(entry: Json): unknown {
  const type = typeof entry.type === 'string' ? entry.type : 'function';
  const inner = entry[type];
  if (isObject(inner) && inner.name !== undefined) return inner.name;
  return entry.name;
}

/** The names an `allowed_tools` choice lists (Chat: under `allowed_tools`; Responses: at the top). */
export function allowedToolNames(tools: unknown): string[] {
  return (Array.isArray(tools) ? tools : [])
    .filter(isObject)
    .map(toolNameOf)
    .filter((name): name is string => typeof name === 'string');
}

/**
 * OpenAI's request dialect.
 *
 * @example
 * openAIDialect.tool({ type: 'function', function: { name: 'get_weather', parameters: {} } }, 0).name // 'get_weather'
 */
export const openAIDialect: WireDialect = {
  tool(entry, index): Omit<ClientTool, 'span'> {
    if (!isObject(entry)) throw new ProxyRequestError(400, `tools[${index}] must be an object`, `tools[${index}]`);
    const name = toolNameOf(entry);
    const isFunction = entry.type === undefined || entry.type === 'function';
    // Another kind may have no name of its own: kept as is.
    if (!isFunction && typeof entry.type === 'string' && name === undefined) {
      return { name: '', selectable: false, deferred: false, schema: undefined, cacheControl: undefined };
    }
    if (typeof name !== 'string' || name === '') {
      throw new ProxyRequestError(
        400,
        `tools[${index}] has no name (expected tools[${index}].function.name)`,
        `tools[${index}].function.name`,
      );
    }
    const fn = entry.function;
    const deferred = isObject(fn) && fn.defer_loading === true;
    const selectable = isFunction && isObject(fn) && !deferred;
    return {
      name,
      selectable,
      deferred,
      schema: selectable
        ? {
            name,
            description: typeof (fn as Json).description === 'string' ? ((fn as Json).description as string) : '',
            parameters: isObject((fn as Json).parameters) ? ((fn as Json).parameters as Json) : {},
          }
        : undefined,
      cacheControl: undefined,
    };
  },

  toolChoice(body): ToolChoice {
    const choice = body.tool_choice;
    if (choice === 'none' || choice === 'required') return { kind: choice };
    if (!isObject(choice)) return { kind: 'auto' };
    if (choice.type === 'allowed_tools' && isObject(choice.allowed_tools)) {
      const allowed = choice.allowed_tools;
      return { kind: 'allowed', names: allowedToolNames(allowed.tools), required: allowed.mode === 'required' };
    }
    const name = toolNameOf(choice);
    return typeof name === 'string' ? { kind: 'named', names: [name], required: true } : { kind: 'auto' };
  },

  calledTools(body): Set<string> {
    const called = new Set<string>();
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!isObject(message) || message.role !== 'assistant') continue;
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (!isObject(call)) continue;
        const name = toolNameOf(call);
        if (typeof name === 'string') called.add(name);
      }
      if (isObject(message.function_call) && typeof message.function_call.name === 'string')
        called.add(message.function_call.name);
    }
    return called;
  },

  conversationKey: 'messages',
  context: openAISelectionQuery,
};
