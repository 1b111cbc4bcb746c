import { nameRecord, ownEntry } from '../registry/name-record.js';
import type { ToolSchema } from '../registry/schema.js';
import { sameSchema } from '../registry/schema.js';
import type { SelectorOutput, ToolReason } from './selector.js';

/**
 * One turn's selection after the contract is applied: the tools to advertise, in registry
 * order, and the diagnostics that explain them.
 */
export interface Selection {
  /** Members of the registry's list, registry order, no duplicates. */
  readonly tools: readonly ToolSchema[];
  /** `tools`' names, same order. */
  readonly names: readonly string[];
  /** Why the selector served the full surface, when it did. */
  readonly fellOpen?: string;
  /** Names of returned schemas that were not members of the registry's list (never advertised). */
  readonly dropped: readonly string[];
  /** Per-tool evidence for the advertised tools. */
  readonly reasons: Readonly<Record<string, ToolReason>>;
  /** Human-readable warnings: fell open, dropped fabrications, degradations. */
  readonly warnings: readonly string[];
}

/**
 * Apply the selection contract to whatever a selector returned: only members of `all`
 * survive (a fabricated schema, even one reusing a registered name, is dropped and
 * reported), duplicates collapse, and the result follows registry order so the request
 * prefix stays stable for prompt caches. An empty selection stays empty.
 *
 * @example
 * const selection = applySelection(selector.select(ctx, all), all)
 * selection.names // e.g. ['read_file', 'grep']
 */
export function applySelection(
  returned: SelectorOutput | readonly ToolSchema[],
  all: readonly ToolSchema[],
): Selection {
  const output: SelectorOutput = isToolList(returned) ? { tools: returned } : returned;
  const position = positionsOf(all);

  const chosen = new Set<number>();
  const dropped: string[] = [];
  for (const tool of output.tools ?? []) {
    const index = tool && typeof tool.name === 'string' ? position.get(tool.name) : undefined;
    const member = index === undefined ? undefined : all[index];
    if (index === undefined || member === undefined || !sameSchema(member, tool)) {
      dropped.push(tool && typeof tool.name === 'string' ? tool.name : String(tool));
      continue;
    }
    chosen.add(index);
  }

  const tools = [...chosen].sort((a, b) => a - b).map((index) => all[index] as ToolSchema);
  const names = tools.map((tool) => tool.name);
  const reasons = nameRecord<ToolReason>();
  for (const name of names) {
    // A selector's own record may be a plain object: only its own entries are reasons.
    const reason = ownEntry(output.reasons, name);
    if (reason) reasons[name] = reason;
  }

  const warnings = [...(output.warnings ?? [])];
  if (output.fellOpen) warnings.push(`selector fell open: ${output.fellOpen}`);
  if (dropped.length > 0) {
    warnings.push(`dropped ${dropped.length} schema(s) not in the registry: ${dropped.join(', ')}`);
  }

  return {
    tools,
    names,
    ...(output.fellOpen ? { fellOpen: output.fellOpen } : {}),
    dropped,
    reasons,
    warnings,
  };
}

// Each frozen list's name → index map, built once: a registry hands the same frozen list of
// frozen schemas every turn, and rebuilding the map each turn cost 6 ms of a 20 ms search at
// 10,000 tools. A list or a schema that is not frozen may change between turns: its map is
// built afresh.
const positions = new WeakMap<readonly ToolSchema[], Map<string, number>>();

function positionsOf(all: readonly ToolSchema[]): Map<string, number> {
  let position = positions.get(all);
  if (!position) {
    position = new Map();
    const map = position;
    all.forEach((tool, index) => {
      map.set(tool.name, index);
    });
    if (Object.isFrozen(all) && all.every(Object.isFrozen)) positions.set(all, position);
  }
  return position;
}

function isToolList(value: SelectorOutput | readonly ToolSchema[]): value is readonly ToolSchema[] {
  return Array.isArray(value);
}

/**
 * Union `core` tools (by name) into a non-empty selection. An empty selection stays empty;
 * unknown core names are ignored.
 */
export function withCore(
  selected: readonly ToolSchema[],
  all: readonly ToolSchema[],
  core: ReadonlySet<string>,
): ToolSchema[] {
  if (selected.length === 0 || core.size === 0) return [...selected];
  const picked = new Set(selected.map((tool) => tool.name));
  return all.filter((tool) => picked.has(tool.name) || core.has(tool.name));
}

/**
 * What a selector that cannot rank returns: the full surface, `fellOpen` naming why, its core
 * tools marked as such, and any warnings gathered on the way.
 *
 * @example
 * return fullSurface(all, core, 'no query to rank against')
 */
export function fullSurface(
  all: readonly ToolSchema[],
  core: ReadonlySet<string>,
  reason: string,
  warnings: readonly string[] = [],
): SelectorOutput {
  const reasons = nameRecord<ToolReason>();
  for (const tool of all) if (core.has(tool.name)) reasons[tool.name] = { core: true };
  return { tools: all, fellOpen: reason, reasons, ...(warnings.length ? { warnings } : {}) };
}
