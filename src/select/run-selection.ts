import { errorMessage } from '../describe-error.js';
import { raceAbort } from '../limits/abort.js';
import type { ToolSchema } from '../registry/schema.js';
import type { Selection } from './apply-selection.js';
import { applySelection } from './apply-selection.js';
import type { AsyncToolSelector, SelectionContext, SelectorOutput } from './selector.js';

/** Options for {@link runSelection}. */
export interface RunSelectionOptions {
  /** Cancels the selection: `runSelection` rejects with the signal's reason and stops waiting. */
  signal?: AbortSignal;
  /**
   * How the selector was installed (default `async`). A Promise from one installed as `sync`
   * is still awaited, with a warning that it should be installed with `withAsyncToolSelector`.
   */
  installedAs?: 'sync' | 'async';
}

/** What made a selection fall open, by kind. */
export type SelectionFault = 'selector_failed' | 'malformed_selection';

/** A {@link Selection} as `runSelection` hands it over: the contract applied, faults named. */
export interface RunSelectionResult extends Selection {
  /** Set when the full surface is served because the selector threw or answered nonsense. */
  readonly fault?: SelectionFault;
}

/**
 * Run one selection: call the selector once (sync or async, list or {@link SelectorOutput}),
 * race it against `signal`, validate what came back and apply the selection contract. It never
 * fails for the selector's sake: a throw, a rejection or a malformed answer (not a list, `null`
 * entries, only unregistered tools…) serves the full surface with a single warning naming what
 * was wrong. An intentional empty list stays empty (the request then carries no tools). No
 * selector serves every tool, exactly as a loop without selection would.
 *
 * A list of tool *names* (strings) is accepted as names of registered tools.
 *
 * @example
 * const selection = await runSelection(new KeywordSelector(), ctx, registry.schemas(), { signal })
 * selection.names     // ['get_weather']
 * selection.fellOpen  // undefined, or why every tool was served
 * selection.warnings  // one line per problem, ready for a `warning` event
 */
export async function runSelection(
  selector: AsyncToolSelector | undefined,
  ctx: SelectionContext,
  all: readonly ToolSchema[],
  options: RunSelectionOptions = {},
): Promise<RunSelectionResult> {
  if (!selector) return applySelection(all, all);
  const signal = options.signal ?? new AbortController().signal;
  const name = selector.name ?? 'custom';
  const notes: string[] = [];
  let returned: unknown;
  try {
    signal.throwIfAborted();
    returned = selector.select(ctx, all, { signal });
    if (isThenable(returned)) {
      if (options.installedAs === 'sync') {
        notes.push(
          `selector ${name} was installed as sync but returned a Promise; it was awaited (install it with withAsyncToolSelector)`,
        );
      }
      returned = await raceAbort(Promise.resolve(returned), signal);
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    // A selector that throws must not strand the model: serve the full surface and say why.
    const message = errorMessage(error);
    return fallOpen(
      all,
      'selector_failed',
      `selector threw: ${message}`,
      `selector ${name} failed, advertising every tool: ${message}`,
      notes,
    );
  }

  const malformed = (problem: string): RunSelectionResult =>
    fallOpen(
      all,
      'malformed_selection',
      `malformed selection: ${problem}`,
      `selector ${name} returned a malformed selection (${problem}), advertising every tool`,
      notes,
    );
  const checked = checkSelectorResult(returned, all);
  if (typeof checked === 'string') return malformed(checked);
  const selection = applySelection(checked, all);
  if (checked.tools.length > 0 && selection.tools.length === 0 && !checked.fellOpen) {
    return malformed(
      `none of the ${checked.tools.length} returned tool(s) is registered: ${selection.dropped.join(', ')}`,
    );
  }
  return notes.length > 0 ? { ...selection, warnings: [...notes, ...selection.warnings] } : selection;
}

function fallOpen(
  all: readonly ToolSchema[],
  fault: SelectionFault,
  reason: string,
  warning: string,
  notes: readonly string[],
): RunSelectionResult {
  const selection = applySelection(all, all);
  return { ...selection, fellOpen: reason, warnings: [...notes, warning], fault };
}

/**
 * Turn whatever a selector returned into a {@link SelectorOutput}, or say what is wrong with
 * it. Names (strings) become the registered schemas of those names; unknown names and
 * fabricated schemas are left for the contract to drop and report.
 */
export function checkSelectorResult(value: unknown, all: readonly ToolSchema[]): SelectorOutput | string {
  if (value === null || value === undefined) return `got ${value}`;
  if (Array.isArray(value)) {
    const tools = checkToolList(value, all);
    return typeof tools === 'string' ? tools : { tools };
  }
  if (typeof value !== 'object') return `got a ${typeof value}, not a list of tools`;
  const output = value as Partial<SelectorOutput>;
  if (!Array.isArray(output.tools)) return `"tools" is ${describeValue(output.tools)}, not a list`;
  const tools = checkToolList(output.tools, all);
  return typeof tools === 'string' ? tools : ({ ...output, tools } as SelectorOutput);
}

function checkToolList(list: readonly unknown[], all: readonly ToolSchema[]): ToolSchema[] | string {
  let byName: Map<string, ToolSchema> | undefined; // built only when names are used
  const tools: ToolSchema[] = [];
  for (const [index, entry] of list.entries()) {
    if (typeof entry === 'string') {
      byName ??= new Map(all.map((tool) => [tool.name, tool]));
      // An unknown name becomes a placeholder the contract drops and reports by name.
      tools.push(byName.get(entry) ?? ({ name: entry, description: '', parameters: {} } as ToolSchema));
    } else if (entry !== null && typeof entry === 'object' && typeof (entry as ToolSchema).name === 'string') {
      tools.push(entry as ToolSchema);
    } else {
      return `entry ${index} is ${describeValue(entry)}, not a tool`;
    }
  }
  return tools;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object without a name' : `${typeof value} ${String(value).slice(0, 40)}`;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}
