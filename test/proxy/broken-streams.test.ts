/**
 * An upstream answer that breaks after its headers (a stream cut short, garbage for events, a
 * truncated JSON document) reaches the client as an error in the protocol's own shape, never
 * as a normal end: with the server-side search active the proxy re-frames the stream and must
 * not close it as if the model had finished; passed through, the stream is the upstream's own.
 */
import { describe, expect, it } from 'vitest';
import type { FaultReply } from './stream-fault-fixture.js';
import { clientEvents, clientRequest, faultProxy, searchOffered } from './stream-fault-fixture.js';

type Protocol = 'openai' | 'anthropic' | 'responses';

const sse = (data: unknown, event?: string): string =>
  `${event !== undefined ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const chatChunk = (delta: unknown, finish: string | null = null) =>
  sse({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

const messagesEvent = (type: string, fields: Record<string, unknown>) => sse({ type, ...fields }, type);

const responsesEvent = (type: string, fields: Record<string, unknown>) => sse({ type, ...fields }, type);

const GARBAGE = sse('<html>502 Bad Gateway</html>');

/** The start of an answer in each protocol: text on its way, no end. */
const START: Record<Protocol, string[]> = {
  openai: [chatChunk({ role: 'assistant', content: 'Checking' })],
  anthropic: [
    messagesEvent('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'm',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 5, output_tokens: 1 },
      },
    }),
    messagesEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    messagesEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Checking' } }),
  ],
  responses: [
    responsesEvent('response.created', {
      sequence_number: 0,
      response: { id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', output: [] },
    }),
    responsesEvent('response.output_item.added', {
      sequence_number: 1,
      output_index: 0,
      item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] },
    }),
    responsesEvent('response.output_text.delta', {
      sequence_number: 2,
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta: 'Checking',
    }),
  ],
};

/** The rest of a well-formed answer after {@link START}. */
const FINISH: Record<Protocol, string[]> = {
  openai: [chatChunk({}, 'stop'), sse('[DONE]')],
  anthropic: [
    messagesEvent('content_block_stop', { index: 0 }),
    messagesEvent('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } }),
    messagesEvent('message_stop', {}),
  ],
  responses: [
    responsesEvent('response.completed', {
      sequence_number: 3,
      response: { id: 'resp_1', object: 'response', created_at: 1, status: 'completed', output: [] },
    }),
  ],
};

async function send(protocol: Protocol, reply: FaultReply, options: { stream: boolean; search: boolean }) {
  const { app, upstream } = faultProxy([reply]);
  const { path, init } = clientRequest(protocol, options);
  const response = await app.request(path, init);
  return { response, upstream };
}

/** The client's stream ends with an error in `protocol`'s stream shape and nothing that reads as a normal end. */
function expectStreamError(protocol: Protocol, text: string, type = 'api_error'): void {
  const events = clientEvents(text);
  const last = events.at(-1);
  expect(last, text).toBeDefined();
  const data = JSON.parse(last?.data ?? '{}');
  if (protocol === 'openai') {
    expect(data.error).toMatchObject({ type });
    expect(typeof data.error.message).toBe('string');
    expect(events.some((event) => event.data === '[DONE]')).toBe(false);
    expect(text).not.toMatch(/"finish_reason":"(?:stop|tool_calls)"/);
  } else if (protocol === 'anthropic') {
    expect(last?.event).toBe('error');
    expect(data).toMatchObject({ type: 'error', error: { type } });
    expect(typeof data.error.message).toBe('string');
    expect(events.some((event) => event.event === 'message_stop' || event.event === 'message_delta')).toBe(false);
  } else {
    expect(last?.event).toBe('error');
    expect(data).toMatchObject({ type: 'error', code: type });
    expect(events.some((event) => event.event === 'response.completed')).toBe(false);
  }
}

describe('server-side search: a broken upstream stream is an error, not a normal end', () => {
  for (const protocol of ['openai', 'anthropic', 'responses'] as const) {
    it(`${protocol}: a stream that ends before its finish ends with an error event`, async () => {
      const { response, upstream } = await send(protocol, { pieces: START[protocol] }, { stream: true, search: true });
      expect(searchOffered(upstream.bodies[0])).toBe(true);
      expect(response.status).toBe(200);
      const text = await response.text();
      expect(text).toContain('Checking'); // what had arrived was relayed
      expectStreamError(protocol, text);
      expect(JSON.parse(clientEvents(text).at(-1)?.data ?? '{}')).not.toHaveProperty('error.message', '');
    });

    it(`${protocol}: garbage for an event ends the stream with an error event, the garbage not relayed`, async () => {
      const { response, upstream } = await send(
        protocol,
        { pieces: [...START[protocol], GARBAGE, ...FINISH[protocol]] },
        { stream: true, search: true },
      );
      expect(searchOffered(upstream.bodies[0])).toBe(true);
      const text = await response.text();
      expect(text).not.toContain('Bad Gateway');
      expectStreamError(protocol, text);
      expect(upstream.cancelled[0]).toBe(true); // the rest of a broken stream is not read
    });

    it(`${protocol}: a connection lost mid-stream ends with an error event`, async () => {
      const { response } = await send(
        protocol,
        { pieces: START[protocol], ending: 'error' },
        { stream: true, search: true },
      );
      expectStreamError(protocol, await response.text());
    });

    it(`${protocol}: a well-formed stream still ends normally`, async () => {
      const { response } = await send(
        protocol,
        { pieces: [...START[protocol], ...FINISH[protocol]] },
        { stream: true, search: true },
      );
      const text = await response.text();
      const events = clientEvents(text);
      if (protocol === 'openai') expect(events.at(-1)?.data).toBe('[DONE]');
      else if (protocol === 'anthropic') expect(events.at(-1)?.event).toBe('message_stop');
      else expect(events.at(-1)?.event).toBe('response.completed');
    });

    it(`${protocol}: a truncated JSON answer is a 502 in the provider's shape`, async () => {
      const { response, upstream } = await send(
        protocol,
        { contentType: 'application/json', pieces: ['{"id":"x","choices":[{"index":0,"mess'] },
        { stream: false, search: true },
      );
      expect(searchOffered(upstream.bodies[0])).toBe(true);
      expect(response.status).toBe(502);
      const body = await response.json();
      if (protocol === 'anthropic') expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
      else expect(body).toMatchObject({ error: { type: 'upstream_error' } });
    });
  }
});

describe('passed through (no search): the stream stays the upstream own', () => {
  it('a stream that ends early reaches the client as it is: no end is made up', async () => {
    const { response, upstream } = await send('openai', { pieces: START.openai }, { stream: true, search: false });
    expect(searchOffered(upstream.bodies[0])).toBe(false);
    expect(await response.text()).toBe(START.openai.join(''));
  });

  for (const protocol of ['openai', 'anthropic', 'responses'] as const) {
    it(`${protocol}: a connection lost mid-stream ends with an error event after what arrived`, async () => {
      const { response } = await send(
        protocol,
        { pieces: START[protocol], ending: 'error' },
        { stream: true, search: false },
      );
      const text = await response.text();
      expect(text.startsWith(START[protocol].join(''))).toBe(true);
      expectStreamError(protocol, text);
    });
  }
});
