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
 * The events of an SSE byte stream, as they complete.
 *
 * @example
 * for await (const event of sseEvents(response.body)) console.log(event.event, event.data)
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    while (true) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let boundary = nextBoundary(buffer);
      while (boundary) {
        const event = parseEvent(buffer.slice(0, boundary.at));
        buffer = buffer.slice(boundary.at + boundary.length);
        if (event) yield event;
        boundary = nextBoundary(buffer);
      }
      if (done) {
        const last = parseEvent(buffer);
        if (last) yield last;
        return;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

function nextBoundary(buffer: string): { at: number; length: number } | undefined {
  const lf = buffer.indexOf('\n\n');
  const crlf = buffer.indexOf('\r\n\r\n');
  if (lf === -1 && crlf === -1) return undefined;
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { at: crlf, length: 4 };
  return { at: lf, length: 2 };
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
