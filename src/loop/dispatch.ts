/** Tool dispatch for one turn: the model's calls through the registry, in parallel. */

import { raceAbort } from '../limits/abort.js';
import type { ToolCall, ToolMessage, ToolResult } from '../message.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { Selection } from '../select/apply-selection.js';
import { ToolConstraint } from './constraint.js';
import type { Emit } from './loop-run.js';

/** What one turn's dispatch needs. */
export interface DispatchTurn {
  /** Where calls go: the registry, or a view of it that answers the loop's own tools (find_tools). */
  readonly registry: Pick<ToolRegistry, 'has' | 'dispatch'>;
  readonly selection: Selection;
  readonly constraint: ToolConstraint;
  readonly signal: AbortSignal;
  readonly turn: number;
  readonly emit: Emit;
}

/**
 * Dispatch a turn's tool calls in parallel and return their results in call order. Emits
 * `tool_call` for each (saying whether it was advertised), then `tool_result` as each ends.
 * Under `Strict`, a registered but unadvertised tool is not run; a cancelled run answers
 * every pending call with a "cancelled" error result at once, whatever its handler does.
 *
 * @example
 * const results = await dispatchAll(calls, { registry, selection, constraint, signal, turn, emit })
 */
export async function dispatchAll(
  calls: readonly ToolCall[],
  { registry, selection, constraint, signal, turn, emit }: DispatchTurn,
): Promise<ToolResult[]> {
  const advertised = new Set(selection.names);
  for (const call of calls) emit({ type: 'tool_call', turn, call, advertised: advertised.has(call.name) });
  return Promise.all(
    calls.map(async (call) => {
      const started = performance.now();
      let result: ToolResult;
      if (constraint === ToolConstraint.Strict && !advertised.has(call.name) && registry.has(call.name)) {
        result = {
          toolCallId: call.id,
          name: call.name,
          content: `tool "${call.name}" was not offered this turn`,
          isError: true,
        };
      } else {
        // A handler that ignores its signal must not hold a cancelled run open.
        result = await raceAbort(registry.dispatch(call, { signal }), signal).catch(() => ({
          toolCallId: call.id,
          name: call.name,
          content: `tool "${call.name}" was cancelled`,
          isError: true,
        }));
      }
      emit({ type: 'tool_result', turn, result, ms: performance.now() - started });
      return result;
    }),
  );
}

/** A tool result as the transcript's tool message. */
export function toToolMessage(result: ToolResult): ToolMessage {
  return {
    role: 'tool',
    toolCallId: result.toolCallId,
    name: result.name,
    content: result.content,
    ...(result.isError ? { isError: true } : {}),
    ...(result.references ? { references: result.references } : {}),
  };
}
