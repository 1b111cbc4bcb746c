/**
 * What the server-side tool search needs from each wire protocol: read the model's calls from
 * an answer (whole, or as a stream), append the model's turn and the proxy's answers to the
 * conversation, and hand the client one ordinary answer whatever happened in between. The
 * three protocols implement it in `chat-rounds.ts`, `messages-rounds.ts` and
 * `responses-rounds.ts`; `search-rounds.ts` drives them.
 */
import type { SseEvent } from './sse-events.js';

/** One tool call the model made. */
export interface ModelCall {
  /** The call id (`tool_calls[].id`, `tool_use.id`, Responses `call_id`). */
  readonly id: string;
  readonly name: string;
  /** The arguments as JSON text. */
  readonly args: string;
}

/** An answer the proxy gives the model for one of its calls. */
export interface CallResult {
  readonly call: ModelCall;
  readonly content: string;
  readonly isError?: boolean;
}

/** What one round of a stream came to. */
export interface StreamRoundEnd {
  readonly calls: readonly ModelCall[];
  /** The model's turn as conversation entries (JSON texts), for the next round. */
  readonly turn: readonly string[];
  readonly usage: unknown;
  /** The stream ended with an error event (already sent to the client): no more rounds. */
  readonly failed: boolean;
  /**
   * The stream reached its protocol's own end (Chat: a `finish_reason` or `[DONE]`; Messages:
   * `message_stop`; Responses: `response.completed`, `.incomplete` or `.failed`). A stream that
   * stops before it was cut short: what it holds is no answer to finish.
   */
  readonly complete: boolean;
}

/**
 * An upstream event that is not its protocol's (data that is not a JSON object): the stream is
 * broken, and the round cannot be read on.
 */
export class BrokenUpstreamStream extends Error {
  override name = 'BrokenUpstreamStream';
}

/** The per-request state of a stream across rounds. */
export interface StreamCodec {
  /**
   * One upstream event of the current round: the events the client gets now. Throws
   * {@link BrokenUpstreamStream} for an event that is not the protocol's.
   */
  push(event: SseEvent): SseEvent[];
  /** The current round's stream ended. */
  end(): StreamRoundEnd;
  /** A new round begins. */
  next(): void;
  /** The closing events: `calls` as the client gets them, `usage` summed over every round. */
  close(calls: readonly ModelCall[], usage: unknown): SseEvent[];
  /** An error event in this protocol's stream shape. */
  error(type: string, message: string): SseEvent;
}

/** One protocol's side of the server-side search. */
export interface RoundCodec {
  /** The model's calls in a whole answer. */
  calls(answer: Readonly<Record<string, unknown>>): ModelCall[];
  /** The model's turn of a whole answer, as conversation entries (JSON texts). */
  turn(answer: Readonly<Record<string, unknown>>): string[];
  usage(answer: Readonly<Record<string, unknown>>): unknown;
  /** The proxy's answers as conversation entries (JSON texts). */
  results(results: readonly CallResult[]): string[];
  /**
   * The client's answer: the last round's, with `calls` in place of the model's, the text of
   * the earlier rounds before its own, and `usage` summed over every round.
   */
  final(
    answer: Readonly<Record<string, unknown>>,
    calls: readonly ModelCall[],
    earlier: readonly Readonly<Record<string, unknown>>[],
    usage: unknown,
  ): unknown;
  stream(): StreamCodec;
}

/**
 * Usage objects added field by field (numbers summed, nested objects merged the same way):
 * the client is billed for every round, so it is told about every round.
 *
 * @example
 * sumUsage({ input_tokens: 10, output_tokens: 2 }, { input_tokens: 12, output_tokens: 3 }) // { input_tokens: 22, output_tokens: 5 }
 */
export function sumUsage(a: unknown, b: unknown): unknown {
  if (a === undefined || a === null) return b;
  if (b === undefined || b === null) return a;
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) || Array.isArray(b)) return b;
  const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [key, value] of Object.entries(b as Record<string, unknown>)) out[key] = sumUsage(out[key], value);
  return out;
}

/** Parse JSON that should be an object; undefined otherwise. */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An event's data as the JSON object every event of the three protocols carries; throws
 * {@link BrokenUpstreamStream} for anything else (an HTML error page, a cut line), which the
 * client must not be handed as if it were an event.
 *
 * @example
 * const chunk = eventObject(event) // { id: 'chatcmpl-1', choices: [...] }
 */
export function eventObject(event: SseEvent): Record<string, unknown> {
  const data = parseObject(event.data);
  if (!data) throw new BrokenUpstreamStream('the upstream sent an event that is not JSON');
  return data;
}
