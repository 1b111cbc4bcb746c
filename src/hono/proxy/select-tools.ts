/**
 * The one place the proxy runs a selector: get it from the table, then `runSelection`, which
 * calls it once, validates what came back, applies the selection contract and fails open
 * (every tool, with the reason) on a throw or a malformed answer, as the loop does. Getting the
 * selector can fail too (an embedder that does not load): that falls open the same way. Only
 * the client's abort rejects.
 */
import { errorMessage } from '../../describe-error.js';
import type { ToolSchema } from '../../registry/schema.js';
import { runSelection } from '../../select/run-selection.js';
import type { AsyncToolSelector, SelectionContext } from '../../select/selector.js';

/** What one selection decided. */
export interface ToolSelection {
  /** Names of the selected tools. */
  readonly names: ReadonlySet<string>;
  /** Set when the selector (or getting it) failed and every tool is served. */
  readonly fellOpen?: string;
  readonly warnings: readonly string[];
}

/**
 * Select from `all` for `ctx`. `selector` resolves the named selector (it may load a model).
 *
 * @example
 * const selection = await selectTools(async () => (await table.get('hybrid', 8)).selector, ctx, all, signal)
 * selection.fellOpen ?? [...selection.names]
 */
export async function selectTools(
  selector: () => Promise<AsyncToolSelector>,
  ctx: SelectionContext,
  all: readonly ToolSchema[],
  signal: AbortSignal,
): Promise<ToolSelection> {
  let resolved: AsyncToolSelector;
  try {
    resolved = await selector();
  } catch (error) {
    signal.throwIfAborted();
    const reason = `selector unavailable: ${errorMessage(error)}`;
    return { names: new Set(all.map((tool) => tool.name)), fellOpen: reason, warnings: [reason] };
  }
  const selection = await runSelection(resolved, ctx, all, { signal });
  return {
    names: new Set(selection.names),
    ...(selection.fellOpen !== undefined ? { fellOpen: selection.fellOpen } : {}),
    warnings: selection.warnings,
  };
}
