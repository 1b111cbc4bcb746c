/**
 * Declared links: the tools a user says a tool needs first (at registration, with
 * `withToolNeeds`, or in the selector's options), checked against the registry, and the cycles
 * among them reported.
 */
import type { ToolSchema } from '../registry/schema.js';
import type { IndexedLink, ToolLinkOptions } from './link-types.js';

/** Most declared providers kept for one tool. */
const MAX_DECLARED = 8;

/**
 * The links a user declares (tool name → the tools it needs first, best first), by registry
 * index; unknown names, self-links and overlong lists are ignored with a warning.
 *
 * @example
 * declaredLinks({ assign_task: ['search_tasks'] }, position, warnings).get(3)?.providers // [7]
 */
export function declaredLinks(
  declared: ToolLinkOptions['declared'],
  position: ReadonlyMap<string, number>,
  warnings: string[],
): Map<number, IndexedLink> {
  const out = new Map<number, IndexedLink>();
  if (!declared || typeof declared !== 'object') return out;
  for (const [tool, needed] of Object.entries(declared)) {
    const consumer = position.get(tool);
    if (consumer === undefined) {
      warnings.push(`tool links: declared links of "${tool}" ignored: no tool of that name is registered`);
      continue;
    }
    const list = Array.isArray(needed) ? needed : [];
    if (!Array.isArray(needed))
      warnings.push(`tool links: declared links of "${tool}" ignored: expected a list of tool names`);
    const providers: number[] = [];
    const names: string[] = [];
    for (const name of list) {
      const at = typeof name === 'string' ? position.get(name) : undefined;
      if (at === undefined)
        warnings.push(`tool links: "${tool}" needs "${String(name)}", which is not registered; ignored`);
      else if (at === consumer) warnings.push(`tool links: "${tool}" cannot need itself; ignored`);
      else if (!providers.includes(at) && providers.length < MAX_DECLARED) {
        providers.push(at);
        names.push(name as string);
      }
    }
    if (list.length > MAX_DECLARED)
      warnings.push(`tool links: "${tool}" declares ${list.length} tools; only the first ${MAX_DECLARED} are kept`);
    out.set(consumer, {
      link: { tool, providers: names, source: 'declared' },
      providers,
      strength: providers.map((_, i) => 1 - i * 0.01),
    });
  }
  return out;
}

/**
 * One warning per cycle among declared links (the walk stops at a tool it has met, so a cycle
 * costs nothing).
 *
 * @example
 * declaredCycles(declared, all) // ['tool links: declared links form a cycle (a → b → a); …']
 */
export function declaredCycles(declared: ReadonlyMap<number, IndexedLink>, all: readonly ToolSchema[]): string[] {
  const warnings: string[] = [];
  const state = new Map<number, 'open' | 'done'>();
  const path: number[] = [];
  const visit = (node: number) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of declared.get(node)?.providers ?? []) {
      if (state.get(next) === 'open') {
        const cycle = [...path.slice(path.indexOf(next)), next].map((i) => (all[i] as ToolSchema).name);
        if (warnings.length < 8)
          warnings.push(`tool links: declared links form a cycle (${cycle.join(' → ')}); a selection follows it once`);
      } else if (!state.has(next) && declared.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of declared.keys()) if (!state.has(node)) visit(node);
  return warnings;
}
