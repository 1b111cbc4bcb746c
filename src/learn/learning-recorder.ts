/**
 * Opt-in learning from a loop's own traffic: a turn whose tool calls all dispatched without
 * error teaches the selector "this run's prompt → these tools". Only selectors that can learn
 * (`learn(examples, { tools })`, e.g. EmbeddingSelector and HybridSelector) are taught; the
 * examples stay in the selector's own cache.
 */

import { errorMessage } from '../describe-error.js';
import type { ToolCall, ToolResult } from '../message.js';
import type { ToolSchema } from '../registry/schema.js';
import type { LearnExample } from './example-memory.js';

/** A selector that can learn from examples. */
export interface LearningSelector {
  learn(
    examples: readonly LearnExample[],
    options?: { tools?: readonly ToolSchema[]; signal?: AbortSignal; fit?: 'now' | 'background' },
  ): Promise<unknown>;
}

/**
 * Whether a selector can learn.
 *
 * @example
 * if (canLearn(selector)) await selector.learn([{ query, tools }], { tools: all })
 */
export function canLearn(selector: unknown): selector is LearningSelector {
  return typeof (selector as { learn?: unknown } | undefined)?.learn === 'function';
}

/**
 * Record one turn when every call succeeded. Resolves to a warning message when learning
 * failed (the run carries on), undefined otherwise.
 *
 * @example
 * const problem = await recordTurn(selector, prompt, calls, results, all, signal)
 */
export async function recordTurn(
  selector: unknown,
  prompt: string | undefined,
  calls: readonly ToolCall[],
  results: readonly ToolResult[],
  all: readonly ToolSchema[],
  signal: AbortSignal,
): Promise<string | undefined> {
  if (!canLearn(selector) || !prompt || prompt.trim() === '') return undefined;
  if (results.length !== calls.length || results.some((result) => result.isError)) return undefined;
  const registered = new Set(all.map((tool) => tool.name));
  const tools = [...new Set(calls.map((call) => call.name).filter((name) => registered.has(name)))];
  if (tools.length === 0) return undefined;
  try {
    // The selector refits in the background: the next request goes out with the map in force.
    await selector.learn([{ query: prompt, tools }], { tools: all, signal, fit: 'background' });
    return undefined;
  } catch (error) {
    if (signal.aborted) return undefined;
    return `learning from this turn failed: ${errorMessage(error)}`;
  }
}
