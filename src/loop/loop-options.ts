/** What a loop and a run are configured with, and the defaults the loop fills in. */

import type { BudgetLimits } from '../limits/budget.js';
import type { Message } from '../message.js';
import type { ModelClient, ModelUsage } from '../model/client.js';
import { mergeOptions } from '../options.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { ToolConstraint } from './constraint.js';
import type { StopReason } from './events.js';
import type { ContextManager } from './managers.js';

/**
 * How a loop runs. Every field has a default.
 *
 * @example
 * const config: LoopConfig = { system: 'Be brief.', maxTurns: 6, contextWindow: 32_000 }
 */
export interface LoopConfig {
  /** A system prompt, sent first on every request. */
  system?: string;
  /** How the model may call tools. Default `auto`. */
  constraint?: ToolConstraint;
  /** Requests per run. Default 10. */
  maxTurns?: number;
  /** The model's context window in tokens. Default 128,000. */
  contextWindow?: number;
  /** Room kept for the reply; also sent as the request's max tokens when set. Default 4,096 (not sent). */
  maxOutputTokens?: number;
  /** Sampling temperature, sent only when set. */
  temperature?: number;
  /** Token, wall-clock and turn limits for the run. */
  budget?: BudgetLimits;
  /** Stream replies (text deltas as they arrive). Default true. */
  stream?: boolean;
  /** Counts tokens for estimates. Default: a fast byte-based approximation. */
  tokenCounter?: TokenCounter;
}

/**
 * What a loop is built from.
 *
 * @example
 * const options: BareLoopOptions = { client, registry, managers: [toolResultCompactor()] }
 */
export interface BareLoopOptions {
  client: ModelClient;
  registry: ToolRegistry;
  config?: LoopConfig;
  /** Context managers, tried in order when the window would overflow. */
  managers?: readonly ContextManager[];
}

/**
 * Per-run options.
 *
 * @example
 * loop.run('Summarise my notes', { signal: AbortSignal.timeout(30_000) })
 */
export interface RunOptions {
  /** Cancels the run: the selector race, the model request and tool handlers. */
  signal?: AbortSignal;
  /**
   * Messages that ride this run's request view but not its transcript (attachments,
   * memories). Selectors see them in `conversation`.
   */
  transients?: readonly Message[];
}

/**
 * The outcome of a run, for callers that do not stream.
 *
 * @example
 * const { text, stopReason }: RunResult = await loop.run('hi').result()
 */
export interface RunResult {
  readonly text: string;
  readonly stopReason: StopReason;
  readonly turns: number;
  readonly usage: ModelUsage;
  /** The durable transcript: input messages, replies and tool results. */
  readonly messages: readonly Message[];
  /** The error that ended the run, when one did. */
  readonly error?: { code: string; message: string };
}

/** A config with the defaults filled in (the optional fields stay optional: unset means "not sent"). */
export type ResolvedLoopConfig = LoopConfig & {
  constraint: ToolConstraint;
  maxTurns: number;
  contextWindow: number;
  stream: boolean;
};

const DEFAULTS = {
  constraint: ToolConstraint.Auto as ToolConstraint,
  maxTurns: 10,
  contextWindow: 128_000,
  stream: true,
};

/** The loop's config with its defaults filled in (an option set to `undefined` keeps its default). */
export function resolveLoopConfig(config: Readonly<LoopConfig>): ResolvedLoopConfig {
  return mergeOptions(DEFAULTS, config);
}
