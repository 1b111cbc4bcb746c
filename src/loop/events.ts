import type { ToolCall, ToolResult } from '../message.js';
import type { FinishReason, ModelUsage } from '../model/client.js';
import type { ToolReason } from '../select/selector.js';
import type { BudgetRefusal } from '../limits/budget.js';

/** Why a run ended. */
export type StopReason = 'stop' | 'max_turns' | 'budget' | 'cancelled' | 'error';

/**
 * Everything a run reports, in order. Each event is plain JSON, so a UI or an SSE endpoint
 * can forward it unchanged (event name = `type`).
 *
 * @example
 * for await (const event of loop.run('Weather in Oslo?')) {
 *   if (event.type === 'selection') console.log(event.advertised)
 *   if (event.type === 'text') process.stdout.write(event.delta)
 * }
 */
export type LoopEvent =
  | { type: 'run_start'; prompt: string | undefined; registered: number; selector: string | null; constraint: string }
  | { type: 'turn_start'; turn: number }
  | {
      type: 'selection';
      turn: number;
      advertised: string[];
      registered: number;
      advertisedTokens: number;
      registryTokens: number;
      selector: string | null;
      fellOpen: string | null;
      reasons: Record<string, ToolReason>;
      ms: number;
    }
  | {
      type: 'request';
      turn: number;
      provider: string;
      model: string;
      messages: number;
      tools: number;
      estimatedInputTokens: number;
      anchored: boolean;
      reservationTokens: number;
      contextWindow: number;
    }
  | { type: 'text'; turn: number; delta: string }
  | { type: 'tool_call'; turn: number; call: ToolCall; advertised: boolean }
  | { type: 'tool_result'; turn: number; result: ToolResult; ms: number }
  | { type: 'estimate'; turn: number; phase: 'post_dispatch'; tokens: number; anchored: boolean }
  | { type: 'usage'; turn: number; usage: ModelUsage; totalTokens: number; finishReason: FinishReason }
  | { type: 'compaction'; turn: number; manager: string; beforeTokens: number; afterTokens: number; summary: string }
  | { type: 'warning'; turn: number; code: string; message: string }
  | { type: 'budget_stop'; turn: number; refusal: BudgetRefusal }
  | { type: 'error'; turn: number; code: string; message: string }
  | { type: 'done'; stopReason: StopReason; text: string; turns: number; usage: ModelUsage };

export type LoopEventType = LoopEvent['type'];
