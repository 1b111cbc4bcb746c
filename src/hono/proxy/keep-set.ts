/**
 * Which of the client's tools ride the forwarded request. The selection narrows; these rules
 * keep the conversation valid and the client's intent:
 *
 * 1. Tools the selectors cannot rank (server tools, typed entries, non-function kinds) are always kept.
 * 2. Deferred tools (`defer_loading: true`) are always kept: they cost nothing until the
 *    vendor's tool search reveals them, and dropping one strands that search.
 * 3. Every tool a `tool_reference` (or a tool search result) names is kept: the provider
 *    expands its definition where the reference sits.
 * 4. A tool named by `tool_choice` is always kept.
 * 5. Every tool the conversation already called is kept (unless `called` is left out, as the
 *    stable policy does: it rewrites those calls instead), so the provider never sees a call
 *    to an undeclared tool.
 * 6. `tool_choice: "required"` / `"any"` with an empty selection falls open (every tool).
 * 7. A keep set that ends up empty falls open too: dropping `tools` would also invalidate
 *    `tool_choice` and `parallel_tool_calls`, and zero tools strands a model that must act.
 *
 * Kept tools stay in the client's order, so the request prefix is stable for prompt caches.
 */
import type { ClientTool, ToolChoice } from './proxy-protocol.js';

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
export function keepSet(
  tools: readonly ClientTool[],
  selected: ReadonlySet<string>,
  choice: ToolChoice,
  called: ReadonlySet<string>,
  referenced: ReadonlySet<string> = new Set(),
): KeepSet {
  const all = tools.map((_, index) => index);
  if (
    selected.size === 0 &&
    (choice.kind === 'required' ||
      ((choice.kind === 'named' || choice.kind === 'allowed') && choice.required && choice.names.length === 0))
  ) {
    return { kept: all, fellOpen: 'tool_choice requires a tool call and the selection was empty' };
  }
  const forced = new Set(choice.kind === 'named' || choice.kind === 'allowed' ? choice.names : []);
  const kept = all.filter((index) => {
    const tool = tools[index] as ClientTool;
    return (
      !tool.selectable ||
      selected.has(tool.name) ||
      forced.has(tool.name) ||
      called.has(tool.name) ||
      referenced.has(tool.name)
    );
  });
  if (kept.length === 0) return { kept: all, fellOpen: 'the selection was empty' };
  return { kept };
}
