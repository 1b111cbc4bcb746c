import type { Message } from '../message.js';
import type { ModelUsage } from '../model/client.js';
import type { ToolSchema } from '../registry/schema.js';
import { sameSchema } from '../registry/schema.js';
import { toolsCost } from '../registry/tool-cost.js';
import type { TokenCounter } from '../tokens/token-counter.js';

/** Per-message framing the providers add around content (role markers, separators). */
const MESSAGE_OVERHEAD = 4;

const messageCosts = new WeakMap<TokenCounter, WeakMap<Message, number>>();

/**
 * Estimated tokens of one message as the wire carries it, memoised per message object.
 *
 * @example
 * messageCost({ role: 'user', content: 'hello' }, approxTokenCounter) // 6
 */
export function messageCost(message: Message, counter: TokenCounter): number {
  let perCounter = messageCosts.get(counter);
  if (!perCounter) {
    perCounter = new WeakMap();
    messageCosts.set(counter, perCounter);
  }
  let cost = perCounter.get(message);
  if (cost === undefined) {
    const content =
      typeof message.content === 'string' ? message.content : message.content.map((p) => p.text).join('\n');
    let text = content;
    if (message.role === 'assistant' && message.toolCalls) {
      for (const call of message.toolCalls) text += `${call.id}${call.name}${call.arguments}`;
    }
    // A hosted search's blocks ride back verbatim; a reference's tool counts as a revealed tool.
    if (message.role === 'assistant' && message.providerContent) text += JSON.stringify(message.providerContent.items);
    if (message.role === 'tool') text += message.toolCallId + (message.references?.join(' ') ?? '');
    cost = counter.count(text) + MESSAGE_OVERHEAD;
    perCounter.set(message, cost);
  }
  return cost;
}

/** One estimate of an upcoming request's input. */
export interface ContextEstimate {
  /** Estimated input tokens: messages plus the advertised tools. */
  readonly tokens: number;
  /** Rendered cost of the advertised tools alone. */
  readonly toolTokens: number;
  /** Whether a provider-reported figure anchors it (same surface, same prefix). */
  readonly anchored: boolean;
}

interface Anchor {
  readonly messages: readonly Message[];
  readonly surface: readonly ToolSchema[];
  readonly reported: number;
}

/**
 * Context accounting for one run. Every estimate counts the advertised subset's own rendered
 * cost. A provider-reported usage anchors the estimate for the wire prefix it was built on;
 * a change of advertised surface invalidates that anchor, so the figure can fall below the
 * prior report instead of flooring at it. When to compact, and how far, is {@link contextFit}.
 *
 * @example
 * const account = new ContextAccount(approxTokenCounter)
 * const before = account.estimate(messages, selection.tools)
 * account.anchor(messages, selection.tools, reply.usage)
 */
export class ContextAccount {
  readonly counter: TokenCounter;
  #anchor: Anchor | undefined;

  constructor(counter: TokenCounter) {
    this.counter = counter;
  }

  /** Estimate the input of a request carrying `messages` and advertising `tools`. */
  estimate(messages: readonly Message[], tools: readonly ToolSchema[]): ContextEstimate {
    const toolTokens = toolsCost(tools, this.counter);
    const anchor = this.#anchor;
    if (anchor && sameSurface(anchor.surface, tools) && isPrefix(anchor.messages, messages)) {
      let tokens = anchor.reported;
      for (let i = anchor.messages.length; i < messages.length; i++) {
        tokens += messageCost(messages[i] as Message, this.counter);
      }
      return { tokens, toolTokens, anchored: true };
    }
    let tokens = toolTokens;
    for (const message of messages) tokens += messageCost(message, this.counter);
    return { tokens, toolTokens, anchored: false };
  }

  /** Anchor on what the provider reported for a request built on `messages` and `tools`. */
  anchor(messages: readonly Message[], tools: readonly ToolSchema[], usage: ModelUsage | undefined): void {
    if (!usage || !(usage.inputTokens > 0)) return;
    this.#anchor = { messages: [...messages], surface: [...tools], reported: usage.inputTokens };
  }

  /** Whether an anchor is in force for this surface. */
  anchoredOn(tools: readonly ToolSchema[]): boolean {
    return this.#anchor !== undefined && sameSurface(this.#anchor.surface, tools);
  }

  /**
   * The full-surface reservation: the whole registry's rendered cost plus room for the reply.
   * It alone keeps the full-set figure, since a post-compaction turn may advertise it all; it
   * sets the compaction target, never the trigger (see {@link contextFit}).
   */
  reservation(allTools: readonly ToolSchema[], maxOutputTokens: number): number {
    return toolsCost(allTools, this.counter) + maxOutputTokens;
  }
}

/** The figures one window check compares, all in tokens. */
export interface ContextFigures {
  /** The model's context window. */
  readonly contextWindow: number;
  /** Room kept for the reply (`maxOutputTokens`, default 4,096). */
  readonly outputReservation: number;
  /** The whole registry's rendered cost plus the output reservation ({@link ContextAccount.reservation}). */
  readonly fullSurfaceReservation: number;
}

/** What a window check decided for one request. */
export interface ContextFit {
  /** Messages plus advertised tools plus the output reservation exceed the window: compact. */
  readonly overflows: boolean;
  /** Messages plus the full surface plus the output reservation fit: a compaction may stop here. */
  readonly fitsFullSurface: boolean;
  /**
   * The compaction target, in the estimate's own units (messages plus advertised tools): at
   * or under it, the messages leave room for the full surface and the reply.
   */
  readonly compactionLimit: number;
}

/**
 * The window rule. The **trigger** counts only what the wire carries: compact when messages +
 * advertised tools + output reservation exceed the window, so a wide registry cannot
 * manufacture a compaction (or a `context_overflow` warning) against schemas the request does
 * not send. The **target** keeps the full-set figure: a compaction brings the messages down
 * until messages + the full registry's tools + output reservation fit, because a later turn
 * may advertise the entire surface again (a selector falling open does). When even the full
 * surface and the reply alone exceed the window, the target is below zero and a manager
 * compacts all it can.
 *
 * @example
 * const fit = contextFit(account.estimate(view, selection.tools), {
 *   contextWindow: 128_000,
 *   outputReservation: 4096,
 *   fullSurfaceReservation: account.reservation(registry.schemas(), 4096),
 * })
 * if (fit.overflows) manager.compact({ messages, tokens: estimate.tokens, limit: fit.compactionLimit, counter })
 */
export function contextFit(estimate: ContextEstimate, figures: ContextFigures): ContextFit {
  const messageTokens = estimate.tokens - estimate.toolTokens;
  const messageLimit = figures.contextWindow - figures.fullSurfaceReservation;
  return {
    overflows: estimate.tokens + figures.outputReservation > figures.contextWindow,
    fitsFullSurface: messageTokens <= messageLimit,
    compactionLimit: messageLimit + estimate.toolTokens,
  };
}

/**
 * Whether two advertised surfaces carry the same schemas, in order. Names alone are not
 * enough: a tool replaced under the same name (new description, new cost) changes the wire.
 * Registry schemas are compared by identity first, so the usual case costs nothing.
 */
function sameSurface(a: readonly ToolSchema[], b: readonly ToolSchema[]): boolean {
  return a.length === b.length && a.every((tool, i) => sameSchema(tool, b[i] as ToolSchema));
}

function isPrefix(prefix: readonly Message[], messages: readonly Message[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== messages[i]) return false;
  return true;
}
