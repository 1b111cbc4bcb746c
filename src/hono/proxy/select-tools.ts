/**
 * The one place the proxy runs a selector: fetch it from the table, call it once, apply the
 * selection contract, and fail open (every tool, with the reason) on any fault, as the loop
 * does. Only the client's abort rejects.
 */
import type { ToolSchema } from '../../registry/schema.js';
import type { Selection } from '../../select/apply-selection.js';
import { applySelection } from '../../select/apply-selection.js';
import type { SelectionContext, SelectorOutput } from '../../select/selector.js';
import type { InstallableSelector } from '../../../worker/selector-table.js';

/** What one selection decided. */
export interface ToolSelection {
  /** Names of the selected tools. */
  readonly names: ReadonlySet<string>;
  /** Set when the selector (or getting it) failed and every tool is served. */
  readonly fellOpen?: string;
  readonly warnings: readonly string[];
}

/**
 * Select from `all` for `ctx`. `selector` resolves the named selector (it may load a model);
 * a rejection there is a fault like any other.
 *
 * @example
 * const selection = await selectTools(() => table.get('hybrid', 8), ctx, all, signal)
 * selection.fellOpen ?? [...selection.names]
 */
export async function selectTools(
  selector: () => Promise<InstallableSelector>,
  ctx: SelectionContext,
  all: readonly ToolSchema[],
  signal: AbortSignal,
): Promise<ToolSelection> {
  let selection: Selection;
  try {
    let output: SelectorOutput | readonly ToolSchema[];
    const installed = await selector();
    if (installed.kind === 'sync') {
      const { selector: sync } = installed;
      output = sync.selectDetailed ? sync.selectDetailed(ctx, all) : sync.select(ctx, all);
    } else {
      const { selector: async } = installed;
      output = async.selectDetailed ? await async.selectDetailed(ctx, all, { signal }) : await async.select(ctx, all, { signal });
    }
    selection = applySelection(output, all);
  } catch (error) {
    signal.throwIfAborted();
    const reason = `selector failed: ${error instanceof Error ? error.message : String(error)}`;
    return { names: new Set(all.map((tool) => tool.name)), fellOpen: reason, warnings: [reason] };
  }
  return {
    names: new Set(selection.names),
    ...(selection.fellOpen !== undefined ? { fellOpen: selection.fellOpen } : {}),
    warnings: selection.warnings,
  };
}
