/**
 * One server-sent event, the one type every reader and writer of SSE in loopctl shares (the
 * model clients here, the proxy's `sse-events.ts`). `event` is the event type: this parser
 * fills in `message` when the stream named none; the proxy, which writes events back out,
 * leaves `message` out (the type a reader assumes without one). `data` joins multi-line data
 * with `\n`.
 *
 * @example
 * const event: SseEvent = { event: 'content_block_delta', data: '{"type":"content_block_delta"}' }
 */
export interface SseEvent {
  readonly event?: string;
  readonly data: string;
  readonly id?: string;
  readonly retry?: number;
}

/**
 * An incremental SSE parser: push text as it arrives, split anywhere (even between `\r` and
 * `\n`), and take the events each push completes. `end()` flushes a final event the stream
 * did not close with a blank line.
 *
 * @example
 * const parser = createSseParser()
 * parser.push('data: {"a"')            // []
 * parser.push(':1}\n\n')               // [{ event: 'message', data: '{"a":1}' }]
 */
export interface SseParser {
  push(text: string): SseEvent[];
  end(): SseEvent[];
}

/**
 * Create an {@link SseParser} following the WHATWG event-stream rules: `\n`, `\r\n` and `\r`
 * line endings, `:` comments, one optional space after the colon, `event`/`data`/`id`/`retry`
 * fields, unknown fields ignored, events without data not dispatched.
 *
 * @example
 * const events = createSseParser().push('event: ping\ndata: {}\n\n')
 * events[0]?.event // 'ping'
 */
export function createSseParser(): SseParser {
  let buffer = '';
  let started = false;
  // A chunk ended with '\r': a '\n' opening the next chunk belongs to the same line break.
  let swallowLineFeed = false;
  let eventType = '';
  let data: string[] = [];
  let lastId: string | undefined;
  let retry: number | undefined;
  const out: SseEvent[] = [];

  const dispatch = (): void => {
    if (data.length > 0) {
      out.push({
        event: eventType || 'message',
        data: data.join('\n'),
        ...(lastId !== undefined ? { id: lastId } : {}),
        ...(retry !== undefined ? { retry } : {}),
      });
    }
    eventType = '';
    data = [];
    retry = undefined;
  };

  // A comment (`:` first) names the empty field, which is none of these: it is skipped.
  const line = (text: string): void => {
    if (text === '') {
      dispatch();
      return;
    }
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') eventType = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
  };

  const take = (): SseEvent[] => out.splice(0);

  return {
    push(text) {
      if (text === '') return [];
      if (!started) {
        started = true;
        if (text.startsWith('\uFEFF')) text = text.slice(1);
      }
      if (swallowLineFeed && text.startsWith('\n')) text = text.slice(1);
      swallowLineFeed = false;
      // The buffer holds no line end (the last push consumed them): scan only the new text, so
      // a long line arriving in many chunks costs one pass, not one per chunk.
      buffer += text;
      let start = 0;
      for (let i = buffer.length - text.length; i < buffer.length; i++) {
        const ch = buffer.charCodeAt(i);
        if (ch !== 10 && ch !== 13) continue;
        line(buffer.slice(start, i));
        if (ch === 13) {
          if (i + 1 < buffer.length) {
            if (buffer.charCodeAt(i + 1) === 10) i++;
          } else {
            swallowLineFeed = true;
          }
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
      return take();
    },
    end() {
      // An empty buffer is a blank line: it dispatches, and the dispatch below finds nothing.
      line(buffer);
      buffer = '';
      dispatch();
      return take();
    },
  };
}

/**
 * Read a byte stream (a `fetch` response body) as SSE events. UTF-8 split across chunks is
 * decoded correctly. Breaking out of the loop, or aborting `signal`, cancels the body;
 * an abort rejects with the signal's reason even under a `fetch` that ignores signals.
 *
 * @example
 * const response = await fetch(url, { method: 'POST', body, signal })
 * for await (const event of readSseEvents(response.body!, { signal })) console.log(event.data)
 */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<SseEvent, void, undefined> {
  const { signal } = options;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = createSseParser();
  const onAbort = (): void => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    signal?.throwIfAborted();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      yield* parser.push(decoder.decode(value, { stream: true }));
    }
    yield* parser.push(decoder.decode());
    yield* parser.end();
    finished = true;
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Early exit (consumer broke out, or an error): release the connection.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
