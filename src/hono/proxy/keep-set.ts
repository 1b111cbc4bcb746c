/**
 * Which of the client's tools ride the forwarded request. The selection narrows; these rules
 * keep the conversation valid and the client's intent:
 *
 * 1. Tools the selectors cannot rank (server tools, non-function kinds) are always kept.
 * 2. A tool named by `tool_choice` is always kept.
 * 3. Every tool the conversation already called is kept, so the provider never sees a call
 *    to an undeclared tool.
 * 4. `tool_choice: "required"` / `"any"` with an empty selection falls open (every tool).
 * 5. A keep set that ends up empty falls open too: dropping `tools` would also invalidate
 *    `tool_choice` and `parallel_tool_calls`, and zero tools strands a model that must act.
 *
 * Kept tools stay in the client's order, so the request prefix is stable for prompt caches.
 */
import type { ClientTool, ToolChoice } from './proxy-request.js';

/** What the keep rules decided. */
export interface KeepSet {
  /** Indices into the client's `tools`, ascending (the client's order). */
  readonly kept: readonly number[];
  /** Set when every tool is forwarded because a rule fell open. */
  readonly fellOpen?: string;
}

/**
 * Apply the keep rules to a selection (names the selector picked).
 *
 * @example
 * keepSet(tools, new Set(['get_weather']), { kind: 'auto' }, new Set(['read_file'])).kept // e.g. [3, 17]
 */
export function keepSet(tools: readonly ClientTool[], selected: ReadonlySet<string>, choice: ToolChoice, called: ReadonlySet<string>): KeepSet {
  const all = tools.map((_, index) => index);
  if (selected.size === 0 && choice.kind === 'required') {
    return { kept: all, fellOpen: 'tool_choice requires a tool call and the selection was empty' };
  }
  const forced = new Set(choice.kind === 'named' ? choice.names : []);
  const kept = all.filter((index) => {
    const tool = tools[index] as ClientTool;
    return !tool.selectable || selected.has(tool.name) || forced.has(tool.name) || called.has(tool.name);
  });
  if (kept.length === 0) return { kept: all, fellOpen: 'the selection was empty' };
  return { kept };
}
