/**
 * Server-sent events as the proxy reads and writes them when it has to look inside a stream
 * (server-side tool search): events split on blank lines (`\n\n`, `\r\n\r\n`), `event:` and
 * `data:` fields read, comments skipped. A stream it does not need to read is relayed as bytes.
 */

/** One event. */
export interface SseEvent {
  readonly event?: string;
  /** The `data` field (several `data:` lines joined with `\n`). */
  readonly data: string;
}

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
  let buffer = '';
  // Bytes of the unfinished event in `buffer`, and where in it a boundary may still begin (the
  // text before was searched): an endless event costs one pass, not one per chunk.
  let pending = 0;
  let from = 0;
  let ended = false;
  try {
    while (true) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (!done) pending += value.byteLength;
      let boundary = nextBoundary(buffer, from);
      const split = boundary !== undefined;
      while (boundary) {
        const event = parseEvent(buffer.slice(0, boundary.at));
        buffer = buffer.slice(boundary.at + boundary.length);
        if (event) yield event;
        boundary = nextBoundary(buffer, 0);
      }
      if (split) pending = utf8Length(buffer);
      // `\r\n\r` at the end may become a boundary with the next chunk.
      from = Math.max(0, buffer.length - 3);
      if (pending > maxEventBytes) throw new SseEventTooLarge(maxEventBytes);
      if (done) {
        ended = true;
        const last = parseEvent(buffer);
        if (last) yield last;
        return;
      }
    }
  } finally {
    // Nobody reads the rest: let the upstream connection go.
    if (!ended) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function nextBoundary(buffer: string, from: number): { at: number; length: number } | undefined {
  const lf = buffer.indexOf('\n\n', from);
  const crlf = buffer.indexOf('\r\n\r\n', from);
  if (lf === -1 && crlf === -1) return undefined;
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { at: crlf, length: 4 };
  return { at: lf, length: 2 };
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

function parseEvent(block: string): SseEvent | undefined {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0 && event === undefined) return undefined;
  return { ...(event !== undefined ? { event } : {}), data: data.join('\n') };
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
