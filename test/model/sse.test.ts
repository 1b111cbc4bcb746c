import { describe, expect, it } from 'vitest';
import { createSseParser, readSseEvents, type SseEvent } from '../../src/model/sse.js';

function parseAll(chunks: readonly string[]): SseEvent[] {
  const parser = createSseParser();
  return [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
}

function bytesStream(chunks: readonly Uint8Array[]): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

const composite =
  ': comment line\n' +
  'event: message_start\n' +
  'data: {"type":"message_start"}\n\n' +
  'data: line one\r\n' +
  'data: line two\r\n\r\n' +
  'event: ping\rdata: {}\r\r' +
  'id: 7\n' +
  'retry: 1500\n' +
  'data:no-space\n' +
  'data:  two spaces\n\n' +
  'data: café ☕ 🚀\n\n' +
  'event: last\n' +
  'data: no trailing blank line';

const expected: SseEvent[] = [
  { event: 'message_start', data: '{"type":"message_start"}' },
  { event: 'message', data: 'line one\nline two' },
  { event: 'ping', data: '{}' },
  { event: 'message', data: 'no-space\n two spaces', id: '7', retry: 1500 },
  { event: 'message', data: 'café ☕ 🚀', id: '7' },
  { event: 'last', data: 'no trailing blank line', id: '7' },
];

describe('createSseParser', () => {
  it('parses a whole stream: comments, event names, \\n, \\r\\n and \\r, multi-line data, id, retry', () => {
    expect(parseAll([composite])).toEqual(expected);
  });

  it('gives the same events for every two-way split', () => {
    for (let i = 0; i <= composite.length; i++) {
      expect(parseAll([composite.slice(0, i), composite.slice(i)]), `split at ${i}`).toEqual(expected);
    }
  });

  it('gives the same events when fed one character at a time', () => {
    expect(parseAll([...composite])).toEqual(expected);
  });

  it('gives the same events for three-way splits around every \\r', () => {
    const crs = [...composite.matchAll(/\r/g)].map((m) => m.index);
    for (const cr of crs) {
      for (const offset of [0, 1]) {
        const at = cr + offset;
        const chunks = [composite.slice(0, at), '', composite.slice(at, at + 1), composite.slice(at + 1)];
        expect(parseAll(chunks), `split around ${cr}`).toEqual(expected);
      }
    }
  });

  it('treats a \\r ending one chunk and a \\n opening the next as one line break', () => {
    expect(parseAll(['data: a\r', '\ndata: b\r', '\n\r', '\n'])).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('does not dispatch events without data, and resets the event name', () => {
    expect(parseAll(['event: nothing\n\n', 'data: x\n\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('dispatches an empty data line as an empty string', () => {
    expect(parseAll(['data:\n\n'])).toEqual([{ event: 'message', data: '' }]);
  });

  it('ignores unknown fields and a field without colon', () => {
    expect(parseAll(['foo: bar\nbaz\ndata: ok\n\n'])).toEqual([{ event: 'message', data: 'ok' }]);
  });

  it('strips a leading byte order mark', () => {
    expect(parseAll(['\uFEFFdata: x\n\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('returns completed events from each push', () => {
    const parser = createSseParser();
    expect(parser.push('data: {"a"')).toEqual([]);
    expect(parser.push(':1}\n')).toEqual([]);
    expect(parser.push('\ndata: next')).toEqual([{ event: 'message', data: '{"a":1}' }]);
    expect(parser.end()).toEqual([{ event: 'message', data: 'next' }]);
  });
});

describe('readSseEvents', () => {
  it('decodes UTF-8 split inside multi-byte characters at every byte boundary', async () => {
    const bytes = new TextEncoder().encode(composite);
    for (const size of [1, 2, 3, 5, 7]) {
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      const events: SseEvent[] = [];
      for await (const event of readSseEvents(bytesStream(chunks).stream)) events.push(event);
      expect(events, `slices of ${size}`).toEqual(expected);
    }
  });

  it('cancels the body when the consumer stops early', async () => {
    const body = bytesStream([
      new TextEncoder().encode('data: 1\n\ndata: 2\n\n'),
      new TextEncoder().encode('data: 3\n\n'),
    ]);
    for await (const event of readSseEvents(body.stream)) {
      expect(event.data).toBe('1');
      break;
    }
    expect(body.cancelled()).toBe(true);
  });

  it('rejects with the signal reason when aborted while waiting for bytes', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: first\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of readSseEvents(stream, { signal: controller.signal })) {
        seen.push(event.data);
        setTimeout(() => controller.abort(), 5);
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual(['first']);
    expect(cancelled).toBe(true);
  });
});
