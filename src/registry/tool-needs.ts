import type { ToolSchema } from './schema.js';

/** Declared links: tool name → the tools it needs first, best first. */
export type ToolNeeds = Readonly<Record<string, readonly string[]>>;

// Keyed by the list itself: a registry publishes one frozen list per generation, so the needs
// travel with exactly the surface a selector is handed, and go with it.
const declared = new WeakMap<readonly ToolSchema[], ToolNeeds>();

/**
 * Attach declared links to a tool list: selectors that follow links (the hybrid) read them
 * for this list, over whatever they infer. `ToolRegistry` does this for the needs given at
 * registration; call it yourself when you hand a selector a list of your own. Returns `tools`.
 *
 * @example
 * const tools = withToolNeeds(schemas, { assign_task: ['search_tasks'], reply_to_email: ['search_inbox'] })
 * await selector.select(ctx, tools, { signal })
 */
export function withToolNeeds<T extends readonly ToolSchema[]>(tools: T, needs: ToolNeeds): T {
  declared.set(tools, needs);
  return tools;
}

/**
 * The links declared for this exact list, if any.
 *
 * @example
 * toolNeedsOf(registry.schemas()) // { assign_task: ['search_tasks'] }
 */
export function toolNeedsOf(tools: readonly ToolSchema[]): ToolNeeds | undefined {
  return declared.get(tools);
}
