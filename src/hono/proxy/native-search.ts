/**
 * The vendors' own tool search, as the proxy must leave it: Anthropic's
 * `tool_search_tool_bm25_*` / `tool_search_tool_regex_*` server tools with `defer_loading`
 * custom tools, OpenAI Responses' `tool_search` tool with deferred function tools. A found
 * tool comes back as a `tool_reference` (Anthropic: inside a `tool_search_tool_result`, or in
 * the `tool_result` of the client's own search tool) or in a `tool_search_output` item
 * (Responses), and the provider expands its definition there. So a tool a reference names must
 * stay declared, deferred tools must stay declared (they cost nothing), and none of it may be
 * narrowed away. See docs/proxy.md, "Native tool search".
 */
import type { Json } from './json-value.js';
import { isObject } from './json-value.js';

/** Nesting depth the reference walk follows (references sit 3–5 levels into a message). */
const MAX_DEPTH = 8;

/**
 * Names of the tools that `tool_reference` blocks and tool search outputs anywhere in
 * `conversation` name.
 *
 * @example
 * referencedTools([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'tool_reference', tool_name: 'get_weather' }] }] }])
 * // Set { 'get_weather' }
 */
export function referencedTools(conversation: unknown): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
      return;
    }
    if (!isObject(value)) return;
    if (value.type === 'tool_reference' && typeof value.tool_name === 'string') names.add(value.tool_name);
    // Responses: a client-executed search answers with the found tools' definitions.
    if (value.type === 'tool_search_output' && Array.isArray(value.tools)) {
      for (const tool of value.tools) if (isObject(tool) && typeof tool.name === 'string') names.add(tool.name);
    }
    for (const key in value) {
      const child = value[key];
      if (typeof child === 'object' && child !== null) walk(child, depth + 1);
    }
  };
  walk(conversation, 0);
  return names;
}

/**
 * Whether a `tools` entry is a vendor tool search tool (Anthropic's server tools, Responses'
 * `tool_search`).
 *
 * @example
 * isToolSearchEntry({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' }) // true
 */
export function isToolSearchEntry(entry: unknown): boolean {
  if (!isObject(entry) || typeof entry.type !== 'string') return false;
  return entry.type.startsWith('tool_search_tool_') || entry.type === 'tool_search';
}

/**
 * Whether any `cache_control` breakpoint is set in an Anthropic body (top level, tools,
 * system blocks, message blocks): the client asked for a cached prefix.
 *
 * @example
 * hasBreakpoints({ system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }] }) // true
 */
export function hasBreakpoints(body: Readonly<Json>): boolean {
  if (body.cache_control !== undefined && body.cache_control !== null) return true;
  const marked = (blocks: unknown): boolean =>
    Array.isArray(blocks) && blocks.some((block) => isObject(block) && block.cache_control != null);
  if (marked(body.tools) || marked(body.system)) return true;
  return Array.isArray(body.messages) && body.messages.some((message) => isObject(message) && marked(message.content));
}
