import type { BudgetRefusal } from '../limits/budget.js';
import type { ToolCall, ToolResult } from '../message.js';
import type { FinishReason, ModelUsage } from '../model/client.js';
import type { ToolReason } from '../select/selector.js';
import type { ToolSurface } from './tool-search.js';

/** Why a run ended. */
export type StopReason = 'stop' | 'max_turns' | 'budget' | 'cancelled' | 'error';

/**
 * The context-window figures on `request` and `estimate` events, for a UI to show both sides
 * of the window rule (see `contextFit`): the trigger compares the estimate plus
 * `outputReservationTokens` with `contextWindow`; a compaction's target leaves room for
 * `fullSurfaceReservationTokens` beside the messages (the estimate minus `advertisedTokens`).
 */
export interface ContextEventFigures {
  /** Rendered cost of the tools this request advertises (included in the estimate). */
  advertisedTokens: number;
  /** Room kept for the reply. */
  outputReservationTokens: number;
  /** The whole registry's rendered cost plus the output reservation: the compaction target's reservation. */
  fullSurfaceReservationTokens: number;
  contextWindow: number;
}

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
      /** Deferred mode: the loaded, revealed and deferred split behind `advertised`. */
      surface?: ToolSurface;
    }
  | ({
      type: 'request';
      turn: number;
      provider: string;
      model: string;
      messages: number;
      tools: number;
      /** Messages plus the advertised tools. */
      estimatedInputTokens: number;
      anchored: boolean;
      /** Deferred mode: which tools this request loads, reveals and defers (only loaded ∪ revealed count). */
      surface?: ToolSurface;
    } & ContextEventFigures)
  | { type: 'text'; turn: number; delta: string }
  | { type: 'tool_call'; turn: number; call: ToolCall; advertised: boolean }
  | { type: 'tool_result'; turn: number; result: ToolResult; ms: number }
  | ({
      type: 'estimate';
      turn: number;
      phase: 'post_dispatch';
      tokens: number;
      anchored: boolean;
      surface?: ToolSurface;
    } & ContextEventFigures)
  | { type: 'usage'; turn: number; usage: ModelUsage; totalTokens: number; finishReason: FinishReason }
  | { type: 'compaction'; turn: number; manager: string; beforeTokens: number; afterTokens: number; summary: string }
  | { type: 'warning'; turn: number; code: string; message: string }
  | { type: 'budget_stop'; turn: number; refusal: BudgetRefusal }
  | { type: 'error'; turn: number; code: string; message: string }
  | { type: 'done'; stopReason: StopReason; text: string; turns: number; usage: ModelUsage };

export type LoopEventType = LoopEvent['type'];
