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
  if (!perCounter) messageCosts.set(counter, (perCounter = new WeakMap()));
  let cost = perCounter.get(message);
  if (cost === undefined) {
    const content = typeof message.content === 'string' ? message.content : message.content.map((p) => p.text).join('\n');
    let text = content;
    if (message.role === 'assistant' && message.toolCalls) {
      for (const call of message.toolCalls) text += `${call.id}${call.name}${call.arguments}`;
    }
    if (message.role === 'tool') text += message.toolCallId;
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
 * prior report instead of flooring at it.
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
   * The compaction reservation: the full registry's rendered cost plus room for the reply.
   * It alone keeps the full-set figure, since a post-compaction turn may advertise it all.
   */
  reservation(allTools: readonly ToolSchema[], maxOutputTokens: number): number {
    return toolsCost(allTools, this.counter) + maxOutputTokens;
  }
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
