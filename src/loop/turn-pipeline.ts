/**
 * The steps of one turn after selection, in the order the loop runs them: admit the turn,
 * fit the context (compacting if the request would overflow), build the request, receive the
 * reply, record it, and re-estimate after dispatch. Each step emits its own events.
 */

import type { BudgetGate } from '../limits/budget.js';
import type { AssistantMessage, Message, ProviderContent, ToolCall } from '../message.js';
import {
  type FinishReason,
  keepContent,
  type ModelClient,
  type ModelRequest,
  type ModelUsage,
  type ToolChoice,
} from '../model/client.js';
import type { ToolSchema } from '../registry/schema.js';
import type { Selection } from '../select/apply-selection.js';
import { ToolConstraint } from './constraint.js';
import type { ContextEstimate, ContextFigures } from './estimate.js';
import { contextFit } from './estimate.js';
import type { ContextEventFigures, StopReason } from './events.js';
import type { LoopConfig } from './loop-options.js';
import type { ContextManager } from './managers.js';
import type { RunState } from './run-state.js';
import type { ToolSurface } from './tool-search.js';

/**
 * Whether another turn may start: not when the run was cancelled, hit its turn limit or its
 * budget refuses (which emits `budget_stop`). When it may, the turn is counted and announced.
 */
export function admitTurn(run: RunState, gate: BudgetGate): StopReason | undefined {
  if (run.signal.aborted) return 'cancelled';
  if (run.turn >= run.config.maxTurns) return 'max_turns';
  const refusal = gate.admit();
  if (refusal) {
    run.emit({ type: 'budget_stop', turn: run.turn, refusal });
    return 'budget';
  }
  run.turn += 1;
  run.emit({ type: 'turn_start', turn: run.turn });
  return undefined;
}

/** The request view after the window check, with the figures the events report. */
export interface FittedContext {
  readonly view: readonly Message[];
  readonly estimate: ContextEstimate;
  readonly figures: ContextFigures;
}

/**
 * The window check (see `contextFit`): when messages + advertised tools + output reservation
 * exceed the window, try the managers in order until the messages leave room for the full
 * surface, emitting a `compaction` event per compaction; warn `context_overflow` when the
 * request as sent still overflows.
 */
export function fitContext(
  run: RunState,
  managers: readonly ContextManager[],
  selection: Selection,
  all: readonly ToolSchema[],
  view: readonly Message[],
): FittedContext {
  const { account, config, counter, maxOutput, turn } = run;
  let estimate = account.estimate(view, selection.tools);
  const figures: ContextFigures = {
    contextWindow: config.contextWindow,
    outputReservation: maxOutput,
    fullSurfaceReservation: account.reservation(all, maxOutput),
  };
  let fit = contextFit(estimate, figures);
  if (!fit.overflows) return { view, estimate, figures };
  let fitted = view;
  for (const manager of managers) {
    const compaction = manager.compact({
      messages: run.transcript,
      tokens: estimate.tokens,
      limit: fit.compactionLimit,
      counter,
    });
    if (!compaction) continue;
    run.transcript = compaction.messages;
    fitted = run.view();
    const after = account.estimate(fitted, selection.tools);
    run.emit({
      type: 'compaction',
      turn,
      manager: manager.name,
      beforeTokens: estimate.tokens,
      afterTokens: after.tokens,
      summary: compaction.summary,
    });
    estimate = after;
    fit = contextFit(estimate, figures);
    if (fit.fitsFullSurface) break;
  }
  if (fit.overflows) {
    run.emit({
      type: 'warning',
      turn,
      code: 'context_overflow',
      message: `estimated ${estimate.tokens} tokens plus a ${maxOutput}-token output reservation exceed the ${config.contextWindow}-token window`,
    });
  }
  return { view: fitted, estimate, figures };
}

/** The window figures the `request` and `estimate` events carry, so a UI can show both rules. */
export function contextFigures(estimate: ContextEstimate, figures: ContextFigures): ContextEventFigures {
  return {
    advertisedTokens: estimate.toolTokens,
    outputReservationTokens: figures.outputReservation,
    fullSurfaceReservationTokens: figures.fullSurfaceReservation,
    contextWindow: figures.contextWindow,
  };
}

/**
 * The wire request: the view, exactly the advertised tools (plus, in deferred mode, the
 * deferred ones and how to search them), and only the options that are set.
 */
export function buildRequest(
  messages: readonly Message[],
  tools: readonly ToolSchema[],
  config: LoopConfig,
  deferral: Pick<ModelRequest, 'deferredTools' | 'toolSearch'> = {},
): ModelRequest {
  const toolChoice = wireToolChoice(config.constraint ?? ToolConstraint.Auto);
  return {
    messages,
    tools,
    ...deferral,
    ...(toolChoice && tools.length > 0 ? { toolChoice } : {}),
    // Left out rather than undefined: the request goes to any ModelClient, including a user's
    // own, which may spread it over its defaults.
    ...(config.maxOutputTokens !== undefined ? { maxTokens: config.maxOutputTokens } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
  };
}

// Strict needs no tool choice: the wire carries only the advertised schemas, which is the
// provider's own way of limiting calls; the loop also refuses unadvertised calls.
function wireToolChoice(constraint: ToolConstraint): ToolChoice | undefined {
  if (constraint === ToolConstraint.Required) return 'required';
  if (constraint === ToolConstraint.None) return 'none';
  return undefined;
}

/** What the model answered on one turn. */
export interface TurnReply {
  readonly text: string;
  readonly calls: ToolCall[];
  /** What the reply carried beyond text and calls (a hosted search), sent back with it. */
  readonly providerContent?: ProviderContent | undefined;
  readonly usage: ModelUsage | undefined;
  readonly finishReason: FinishReason;
}

/** Send the request and gather the reply, streamed (text deltas as they come) or whole. */
export async function receiveReply(client: ModelClient, request: ModelRequest, run: RunState): Promise<TurnReply> {
  const { signal, turn } = run;
  const calls: ToolCall[] = [];
  let text = '';
  let usage: ModelUsage | undefined;
  let kept: ProviderContent | undefined;
  let finishReason: FinishReason = 'other';
  if (run.config.stream) {
    for await (const event of client.stream(request, { signal })) {
      if (event.type === 'text') {
        text += event.delta;
        run.emit({ type: 'text', turn, delta: event.delta });
      } else if (event.type === 'tool_call') calls.push(event.call);
      else if (event.type === 'usage') usage = event.usage;
      else if (event.type === 'provider_content') kept = keepContent(kept, event);
      else finishReason = event.reason;
    }
    return { text, calls, usage, finishReason, providerContent: kept };
  }
  const reply = await client.complete(request, { signal });
  if (reply.text) run.emit({ type: 'text', turn, delta: reply.text });
  return {
    text: reply.text,
    calls: [...reply.toolCalls],
    usage: reply.usage,
    finishReason: reply.finishReason,
    providerContent: reply.providerContent,
  };
}

/**
 * Account for a reply: add its reported usage to the totals, the budget and the usage anchor
 * (emitting `usage`), append it to the transcript, and warn when it was cut at the output limit.
 */
export function recordReply(
  run: RunState,
  gate: BudgetGate,
  view: readonly Message[],
  selection: Selection,
  reply: TurnReply,
): void {
  const { turn, usage } = run;
  const reported = reply.usage;
  if (reported) {
    usage.inputTokens += reported.inputTokens;
    usage.outputTokens += reported.outputTokens;
    gate.record(reported);
    run.account.anchor(view, selection.tools, reported);
    run.emit({
      type: 'usage',
      turn,
      usage: reported,
      totalTokens: usage.inputTokens + usage.outputTokens,
      finishReason: reply.finishReason,
    });
  }
  const message: AssistantMessage = {
    role: 'assistant',
    content: reply.text,
    ...(reply.calls.length > 0 ? { toolCalls: reply.calls } : {}),
    ...(reply.providerContent ? { providerContent: reply.providerContent } : {}),
  };
  run.transcript = [...run.transcript, message];
  run.text = reply.text;
  if (reply.finishReason === 'length') {
    run.emit({
      type: 'warning',
      turn,
      code: 'truncated',
      message: 'the reply hit the output token limit and may be cut short',
    });
  }
}

/** The post-dispatch re-feed: the transcript with its tool results, on the same advertised surface. */
export function emitPostDispatchEstimate(
  run: RunState,
  selection: Selection,
  figures: ContextFigures,
  all: readonly ToolSchema[],
  surface?: ToolSurface,
): void {
  const after = run.account.estimate(run.view(), selection.tools);
  run.emit({
    type: 'estimate',
    turn: run.turn,
    phase: 'post_dispatch',
    tokens: after.tokens,
    anchored: after.anchored,
    ...contextFigures(after, { ...figures, fullSurfaceReservation: run.account.reservation(all, run.maxOutput) }),
    ...(surface ? { surface } : {}),
  });
}
