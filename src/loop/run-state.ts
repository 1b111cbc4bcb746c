/** The state one run carries from turn to turn, and how it ends. */
import type { Message } from '../message.js';
import { messageText } from '../message.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { approxTokenCounter } from '../tokens/token-counter.js';
import { ContextAccount } from './estimate.js';
import type { StopReason } from './events.js';
import type { ResolvedLoopConfig, RunOptions, RunResult } from './loop-options.js';
import type { Emit } from './loop-run.js';

/** What ended a run in error, as the `error` event and `RunResult.error` carry it. */
export interface RunError {
  code: string;
  message: string;
}

/**
 * One run's state: its config, the cancellation signal (linked to the caller's and to the
 * consumer going away), the transcript, totals and the context account. `finish` ends it.
 *
 * @example
 * const run = new RunState('Weather in Oslo?', {}, resolveLoopConfig({}), emit)
 * run.transcript // [{ role: 'user', content: 'Weather in Oslo?' }]
 */
export class RunState {
  readonly config: ResolvedLoopConfig;
  readonly counter: TokenCounter;
  /** Room kept for the reply in every window check. */
  readonly maxOutput: number;
  readonly signal: AbortSignal;
  readonly account: ContextAccount;
  /** The run's opening prompt: the last user message of the input. */
  readonly prompt: string | undefined;
  /** System prompt and transients: shared message objects, so the usage anchor recognises its prefix. */
  readonly viewPrefix: readonly Message[];
  readonly emit: Emit;
  transcript: Message[];
  text = '';
  turn = 0;
  readonly usage = { inputTokens: 0, outputTokens: 0 };

  constructor(input: string | readonly Message[], options: RunOptions, config: ResolvedLoopConfig, emit: Emit) {
    this.config = config;
    this.counter = config.tokenCounter ?? approxTokenCounter;
    this.maxOutput = config.maxOutputTokens ?? 4096;
    this.emit = emit;
    // The run stops when the caller aborts or when its consumer goes away, whichever is first.
    const closed = new AbortController();
    emit.onClose(() => closed.abort(new DOMException('the run was closed by its consumer', 'AbortError')));
    this.signal = options.signal ? AbortSignal.any([options.signal, closed.signal]) : closed.signal;

    this.transcript = typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
    this.prompt = openingPrompt(this.transcript);
    this.account = new ContextAccount(this.counter);
    this.viewPrefix = requestPrefix(config.system, options.transients);
  }

  /** What the next request carries: the prefix, then the transcript. */
  view(): Message[] {
    return [...this.viewPrefix, ...this.transcript];
  }

  /** End the run: emit `done` and return the result. */
  finish(stopReason: StopReason, error?: RunError): RunResult {
    const { text, turn: turns, transcript: messages } = this;
    const result: RunResult = {
      text,
      stopReason,
      turns,
      usage: { ...this.usage },
      messages,
      ...(error ? { error } : {}),
    };
    this.emit({ type: 'done', stopReason, text, turns, usage: { ...this.usage } });
    return result;
  }
}

/** The run's opening prompt: the last user message of the input. */
function openingPrompt(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    if (message.role === 'user') return messageText(message);
  }
  return undefined;
}

/**
 * What every request of a run carries ahead of the transcript: the system prompt, then the
 * transients. Built once per run so each request's view shares these message objects: the
 * usage anchor recognises its wire prefix by identity.
 */
function requestPrefix(system: string | undefined, transients: readonly Message[] | undefined): readonly Message[] {
  const prefix: Message[] = [];
  if (system) prefix.push({ role: 'system', content: system });
  if (transients)
    for (const message of transients) prefix.push(message.role === 'user' ? { ...message, transient: true } : message);
  return prefix;
}
