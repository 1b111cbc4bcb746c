import type { Message, ToolMessage } from '../message.js';
import { mergeOptions } from '../options.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { messageCost } from './estimate.js';

/** What a context manager is asked to do: bring `messages` under `limit` tokens if it can. */
export interface CompactionRequest {
  readonly messages: readonly Message[];
  /** The current estimate of messages plus advertised tools. */
  readonly tokens: number;
  /**
   * The target, in the same units as `tokens`: at or under it the messages leave room for the
   * whole registry's tools and the reply (window − full surface − output reservation, plus the
   * advertised tools' cost). Below zero when the full surface alone cannot fit: compact all you can.
   */
  readonly limit: number;
  readonly counter: TokenCounter;
}

/** What a compaction did. */
export interface Compaction {
  readonly messages: Message[];
  /** Tokens removed by the compaction (estimated). */
  readonly savedTokens: number;
  /** What was changed, for the compaction event. */
  readonly summary: string;
}

/**
 * Keeps a conversation inside the window. The loop calls it when the request as sent (messages
 * plus advertised tools plus the output reservation) would exceed the window, and asks for
 * room for the full tool surface (see `contextFit`); it returns a compacted copy, or undefined
 * when it cannot help.
 *
 * @example
 * new BareLoop({ client, registry, managers: [toolResultCompactor({ keepRecent: 2 })] })
 */
export interface ContextManager {
  readonly name: string;
  compact(request: CompactionRequest): Compaction | undefined;
}

/** Options for {@link toolResultCompactor}. */
export interface ToolResultCompactorOptions {
  /** The most recent tool results are never elided. Default 2. */
  keepRecent?: number;
}

/**
 * Replaces the oldest tool results with short placeholders until the conversation fits: old
 * tool output is usually the bulk of a long run and the least needed.
 *
 * @example
 * const managers = [toolResultCompactor({ keepRecent: 3 })]
 */
export function toolResultCompactor(options: ToolResultCompactorOptions = {}): ContextManager {
  const { keepRecent } = mergeOptions({ keepRecent: 2 }, options);
  return {
    name: 'tool-result-compactor',
    compact({ messages, tokens, limit, counter }) {
      const toolIndices = messages.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
      const candidates = toolIndices.slice(0, Math.max(0, toolIndices.length - keepRecent));
      const out = [...messages];
      let current = tokens;
      let elided = 0;
      for (const index of candidates) {
        if (current <= limit) break;
        const original = out[index] as ToolMessage;
        const before = messageCost(original, counter);
        const placeholder: ToolMessage = {
          ...original,
          content: `[tool result elided to save context: about ${before} tokens]`,
        };
        const after = messageCost(placeholder, counter);
        if (after >= before) continue;
        out[index] = placeholder;
        current -= before - after;
        elided += 1;
      }
      if (elided === 0) return undefined;
      return { messages: out, savedTokens: tokens - current, summary: `elided ${elided} old tool result(s)` };
    },
  };
}
