/**
 * The proxy's SSE reader over the one parser (`model/sse.ts`): events come back as they would be
 * written (an unnamed event stays unnamed), and the byte bound counts the event being read,
 * whatever ended the last one: a blank line after a comment resets it as one after data does.
 */
import { describe, expect, it } from 'vitest';
import { SseEventTooLarge, sseEvents, sseText } from '../../src/hono/proxy/sse-events.js';

function stream(pieces: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const queue = [...pieces];
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const piece = queue.shift();
      if (piece === undefined) controller.close();
      else controller.enqueue(encoder.encode(piece));
    },
  });
}

async function read(pieces: readonly string[], maxEventBytes: number): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const event of sseEvents(stream(pieces), { maxEventBytes })) seen.push(event);
  return seen;
}

describe('sseEvents', () => {
  it('keep-alive comments never add up to an event too large', async () => {
    const pieces = [...Array.from({ length: 50 }, () => ': keep-alive\n\n'), 'data: {"a":1}\n\n'];
    expect(await read(pieces, 32)).toEqual([{ data: '{"a":1}' }]);
  });

  it('a blank line split between CR and LF ends the event; lone CR line ends too', async () => {
    expect(await read(['data: a\r', '\n\r\n', 'event: e\rdata: b\r\r'], 16)).toEqual([
      { data: 'a' },
      { event: 'e', data: 'b' },
    ]);
  });

  it('an event past the bound without a blank line throws, after the events before it', async () => {
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const event of sseEvents(stream(['data: ok\n\ndata: ', 'é'.repeat(40)]), { maxEventBytes: 64 }))
        seen.push(event);
    })();
    await expect(reading).rejects.toBeInstanceOf(SseEventTooLarge);
    expect(seen).toEqual([{ data: 'ok' }]);
  });

  it('writes an event back as it was read', async () => {
    const [unnamed, named] = await read(['data: x\n\nevent: message_stop\ndata: y\n\n'], 1024);
    expect(sseText(unnamed as never)).toBe('data: x\n\n');
    expect(sseText(named as never)).toBe('event: message_stop\ndata: y\n\n');
  });
});
