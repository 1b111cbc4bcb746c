/**
 * Server-sent events as the proxy reads and writes them when it has to look inside a stream
 * (server-side tool search). Reading is the one SSE parser (`model/sse.ts`, the WHATWG rules),
 * with what a proxy adds: a bound on the bytes one event may reach, the body cancelled when
 * reading stops early, and the default `message` type left out so an event is written back as
 * it came. A stream the proxy does not need to read is relayed as bytes.
 */
import type { SseEvent } from '../../model/sse.js';
import { createSseParser } from '../../model/sse.js';

export type { SseEvent } from '../../model/sse.js';

/**
 * Default for {@link SseEventOptions.maxEventBytes}: 16 MiB. The largest legitimate event is a
 * whole answer in one piece: Responses' `response.completed` repeats every output item (a long
 * text, a big function call's arguments, a generated image's base64, several MiB), and
 * some OpenAI-compatible servers send a tool call's arguments in one chunk. Well above those,
 * and still a bound on what one stream can make the proxy hold.
 */
export const MAX_SSE_EVENT_BYTES = 16 * 1024 * 1024;

/** Options for {@link sseEvents}. */
export interface SseEventOptions {
  /** The most bytes one event may reach before its blank line. Default {@link MAX_SSE_EVENT_BYTES}. */
  readonly maxEventBytes?: number;
}

/** An event grew past its bound without ending: the stream is abandoned rather than buffered. */
export class SseEventTooLarge extends Error {
  override name = 'SseEventTooLarge';
  constructor(readonly maxBytes: number) {
    super(`an upstream event grew past ${maxBytes} bytes without ending`);
  }
}

/**
 * The events of an SSE byte stream, as they complete. Throws {@link SseEventTooLarge} once the
 * event being read passes `maxEventBytes` (so it holds at most that and one chunk); the body is
 * cancelled whenever reading stops before its end (an error, or the caller leaving the loop).
 *
 * @example
 * for await (const event of sseEvents(response.body, { maxEventBytes: 1 << 20 })) console.log(event.event, event.data)
 */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  options: SseEventOptions = {},
): AsyncGenerator<SseEvent> {
  const maxEventBytes = options.maxEventBytes ?? MAX_SSE_EVENT_BYTES;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createSseParser();
  const unfinished = unfinishedEventBytes();
  let ended = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (const event of parser.push(text)) yield asWritten(event);
      if (done) {
        ended = true;
        for (const event of parser.end()) yield asWritten(event);
        return;
      }
      if (unfinished(text, value.byteLength) > maxEventBytes) throw new SseEventTooLarge(maxEventBytes);
    }
  } finally {
    // Nobody reads the rest: let the upstream connection go.
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

// The parser names an unnamed event `message`; written back, it stays unnamed.
function asWritten(event: SseEvent): SseEvent {
  if (event.event !== 'message') return event;
  const { event: _, ...unnamed } = event;
  return unnamed;
}

// Two line ends in a row (CRLF one end, not two) end an event, dispatched or not (a comment).
const BLANK_LINE = /(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)/g;

/**
 * A counter of the bytes of the event being read: fed each chunk's text and byte length, it
 * answers the bytes since the last blank line. The last 3 characters of a chunk are scanned
 * again with the next, where a blank line split between chunks ends.
 */
function unfinishedEventBytes(): (text: string, bytes: number) => number {
  let pending = 0;
  let carry = '';
  return (text, bytes) => {
    const scan = carry + text;
    let end = -1;
    for (const match of scan.matchAll(BLANK_LINE)) end = match.index + match[0].length;
    pending = end === -1 ? pending + bytes : utf8Length(scan.slice(end));
    carry = scan.slice(-3);
    return pending;
  };
}

/** UTF-8 bytes of `text` (a lone surrogate counts as the 3 bytes of its replacement). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * One event as SSE text.
 *
 * @example
 * sseText({ event: 'message_stop', data: '{"type":"message_stop"}' }) // 'event: message_stop\ndata: {"type":"message_stop"}\n\n'
 */
export function sseText(event: SseEvent): string {
  const data = event.data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n');
  return `${event.event !== undefined ? `event: ${event.event}\n` : ''}${data}\n\n`;
}

/** An SSE comment that keeps a quiet connection alive: clients and intermediaries ignore it. */
export const KEEP_ALIVE = ': keep-alive\n\n';
