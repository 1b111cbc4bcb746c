/**
 * An upstream that goes silent after its headers, or sends one event that never ends, no longer
 * holds the client: the idle timeout between body chunks ends the answer (a 504, or an error
 * event in the protocol's stream shape), and the proxy reading a stream (its search rounds)
 * gives up on an event past its byte cap instead of buffering it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/hono/config-vars.js';
import { createApp, optionsFromVars } from '../../src/hono/index.js';
import { nodeUpstreamFetch } from '../../src/hono/proxy/node-upstream-fetch.js';
import { proxySettingsFromVars } from '../../src/hono/proxy/proxy-env.js';
import { SseEventTooLarge, sseEvents } from '../../src/hono/proxy/sse-events.js';
import { idleLimited, UpstreamIdleTimeout } from '../../src/hono/proxy/upstream-idle.js';
import { ToolRegistry } from '../../src/registry/registry.js';
import type { FaultReply } from './stream-fault-fixture.js';
import { clientEvents, clientRequest, FAULT_TOKEN, faultProxy, searchOffered } from './stream-fault-fixture.js';

type Protocol = 'openai' | 'anthropic' | 'responses';

/** Short enough for a test, the real default is minutes. */
const IDLE = { PROXY_IDLE_TIMEOUT_MS: '300' };
/** The error must come long before a stalled upstream would ever let go (never), and well after 300 ms. */
const WITHIN_MS = 5000;

const FIRST: Record<Protocol, string> = {
  openai: `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'Checking' }, finish_reason: null }] })}\n\n`,
  anthropic: `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage: { input_tokens: 5, output_tokens: 1 } } })}\n\n`,
  responses: `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', output: [] } })}\n\n`,
};

async function timed(
  protocol: Protocol,
  reply: FaultReply,
  options: { stream: boolean; search: boolean },
  vars: Record<string, string> = IDLE,
) {
  const { app, upstream } = faultProxy([reply], vars);
  const { path, init } = clientRequest(protocol, options);
  const started = performance.now();
  const response = await app.request(path, init);
  const text = await response.text();
  return { response, text, upstream, ms: performance.now() - started };
}

/** The last event is a timeout in `protocol`'s stream shape. */
function expectTimeoutEvent(protocol: Protocol, text: string): void {
  const last = clientEvents(text).at(-1);
  const data = JSON.parse(last?.data ?? '{}');
  if (protocol === 'openai') expect(data.error).toMatchObject({ type: 'timeout_error' });
  else if (protocol === 'anthropic') expect(data).toMatchObject({ type: 'error', error: { type: 'timeout_error' } });
  else expect(data).toMatchObject({ type: 'error', code: 'timeout_error' });
  expect(text).toMatch(/sent nothing for 300 ms/);
}

describe('an upstream silent after its headers', () => {
  for (const protocol of ['openai', 'anthropic'] as const) {
    it(`${protocol}, not a stream: a 504 in the provider's shape once the idle timeout passes`, async () => {
      const { response, text, upstream, ms } = await timed(
        protocol,
        { contentType: 'application/json', pieces: ['{"id":"x",'], ending: 'stall' },
        { stream: false, search: false },
      );
      expect(ms).toBeLessThan(WITHIN_MS);
      expect(response.status).toBe(504);
      const body = JSON.parse(text);
      if (protocol === 'anthropic') expect(body).toMatchObject({ type: 'error', error: { type: 'timeout_error' } });
      else expect(body).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_timeout' } });
      expect(upstream.cancelled[0]).toBe(true);
    });
  }

  it('not a stream, search rounds: a 504', async () => {
    const { response, upstream, ms } = await timed(
      'openai',
      { contentType: 'application/json', pieces: ['{"id":"x",'], ending: 'stall' },
      { stream: false, search: true },
    );
    expect(searchOffered(upstream.bodies[0])).toBe(true);
    expect(ms).toBeLessThan(WITHIN_MS);
    expect(response.status).toBe(504);
  });

  for (const protocol of ['openai', 'anthropic', 'responses'] as const) {
    for (const search of [true, false]) {
      it(`${protocol} stream, ${search ? 'search rounds' : 'passed through'}: a timeout error event ends it`, async () => {
        const { response, text, upstream, ms } = await timed(
          protocol,
          { pieces: [FIRST[protocol]], ending: 'stall' },
          { stream: true, search },
        );
        expect(searchOffered(upstream.bodies[0])).toBe(search);
        expect(ms).toBeLessThan(WITHIN_MS);
        expect(response.status).toBe(200);
        expect(text.startsWith(search ? '' : FIRST[protocol])).toBe(true);
        expectTimeoutEvent(protocol, text);
        expect(upstream.cancelled[0]).toBe(true);
      });
    }
  }

  it('a stream slow to begin (keep-alive already sent), then silent: a timeout error event', async () => {
    const { text, ms } = await timed(
      'anthropic',
      { pieces: [FIRST.anthropic], ending: 'stall', delayMs: 400 },
      { stream: true, search: false },
      { ...IDLE, PROXY_KEEPALIVE_MS: '100' },
    );
    expect(ms).toBeLessThan(WITHIN_MS);
    expect(text.startsWith(': keep-alive')).toBe(true);
    expectTimeoutEvent('anthropic', text);
  });

  it('over a real socket (the Node upstream fetch): the error event comes, and the upstream connection is closed', async () => {
    let closed!: () => void;
    const upstreamClosed = new Promise<void>((done) => (closed = done));
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(FIRST.openai); // then nothing, the connection held open
      res.on('close', () => closed());
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const upstream = nodeUpstreamFetch();
    try {
      const options = optionsFromVars({
        LOOPCTL_TOKEN: FAULT_TOKEN,
        PROXY_OPENAI_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        ...IDLE,
      });
      const app = createApp({
        ...options,
        registry: new ToolRegistry(),
        proxy: { ...options.proxy, fetch: upstream.fetch },
      });
      const { path, init } = clientRequest('openai', { stream: true, search: false });
      const started = performance.now();
      const text = await (await app.request(path, init)).text();
      expect(performance.now() - started).toBeLessThan(WITHIN_MS);
      expect(text.startsWith(FIRST.openai)).toBe(true);
      expectTimeoutEvent('openai', text);
      await upstreamClosed; // the test times out if the proxy kept the stalled connection
    } finally {
      upstream.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('PROXY_IDLE_TIMEOUT_MS=0 sets no limit: a stream that pauses is not cut', async () => {
    let resume: () => void = () => undefined;
    const paused = new Promise<void>((done) => (resume = done));
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await paused;
        controller.enqueue(new TextEncoder().encode('data: [DONE]\n\n'));
        controller.close();
      },
    });
    const upstream = idleLimited(new Response(body), 0);
    setTimeout(resume, 50);
    expect(await upstream.text()).toBe('data: [DONE]\n\n');
  });

  it('the clock runs only while the proxy waits on the upstream: a client that reads slowly is not cut', async () => {
    const encoder = new TextEncoder();
    const pieces = ['one ', 'two'];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces.shift();
        if (piece === undefined) controller.close();
        else controller.enqueue(encoder.encode(piece));
      },
    });
    const reader = idleLimited(new Response(body), 100).body?.getReader();
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe('one ');
    await new Promise((done) => setTimeout(done, 400)); // four idle timeouts with nobody reading
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe('two');
    expect((await reader?.read())?.done).toBe(true);
  });

  it('a body read that waits past the timeout fails with UpstreamIdleTimeout', async () => {
    const body = new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) });
    await expect(idleLimited(new Response(body), 50).text()).rejects.toBeInstanceOf(UpstreamIdleTimeout);
  });
});

describe('an upstream event that never ends', () => {
  const CAP = 4096;
  const CHUNK = 1000;
  /** One event that goes on for 256 KiB before its blank line. */
  const endless = (pulled: number): string | undefined =>
    pulled < 256 * 1024 ? 'a'.repeat(CHUNK) : pulled < 256 * 1024 + CHUNK ? '"}\n\n' : undefined;

  for (const protocol of ['openai', 'anthropic', 'responses'] as const) {
    it(`${protocol}, search rounds: an error event once past the cap, the rest never read`, async () => {
      const lead = `${FIRST[protocol]}data: {"x":"`;
      const { text, upstream } = await timed(
        protocol,
        { pieces: [lead], more: endless },
        { stream: true, search: true },
        { PROXY_MAX_SSE_EVENT_BYTES: String(CAP) },
      );
      expect(searchOffered(upstream.bodies[0])).toBe(true);
      const last = JSON.parse(clientEvents(text).at(-1)?.data ?? '{}');
      expect(JSON.stringify(last)).toMatch(/grew past 4096 bytes/);
      expect(protocol === 'anthropic' ? last.type : protocol === 'responses' ? last.type : 'error').toBe('error');
      if (protocol === 'openai') expect(last.error.type).toBe('api_error');
      // What the proxy took from the upstream: the cap and one chunk, not the event.
      expect(upstream.pulled[0]).toBeLessThanOrEqual(new TextEncoder().encode(lead).byteLength + CAP + CHUNK);
      expect(upstream.cancelled[0]).toBe(true);
    });
  }

  it('the parser holds at most the cap and one chunk, and yields the events before the long one', async () => {
    const encoder = new TextEncoder();
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          // Ends after 1 MiB: a parser without a cap reads it all rather than spin forever.
          if (pulled > 1024 * 1024) return controller.close();
          const piece = pulled === 0 ? 'data: short\n\ndata: ' : 'x'.repeat(CHUNK);
          pulled += piece.length;
          controller.enqueue(encoder.encode(piece));
        },
      },
      { highWaterMark: 0 },
    );
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of sseEvents(body, { maxEventBytes: CAP })) seen.push(event.data);
    })();
    await expect(reading).rejects.toBeInstanceOf(SseEventTooLarge);
    expect(seen).toEqual(['short']);
    expect(pulled).toBeLessThanOrEqual(CAP + 2 * CHUNK);
  });

  it('boundaries split across chunks, in both line endings, still end events', async () => {
    const encoder = new TextEncoder();
    const pieces = ['data: a\r\n\r', '\ndata: b\n', '\nevent: e\ndata: c', '\n\n'];
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces.shift();
        if (piece === undefined) controller.close();
        else controller.enqueue(encoder.encode(piece));
      },
    });
    const seen: unknown[] = [];
    for await (const event of sseEvents(body, { maxEventBytes: 16 })) seen.push(event);
    expect(seen).toEqual([{ data: 'a' }, { data: 'b' }, { event: 'e', data: 'c' }]);
  });
});

describe('the bounds as variables', () => {
  it('PROXY_IDLE_TIMEOUT_MS and PROXY_MAX_SSE_EVENT_BYTES', () => {
    expect(proxySettingsFromVars({ PROXY_IDLE_TIMEOUT_MS: '2500', PROXY_MAX_SSE_EVENT_BYTES: '65536' })).toEqual({
      idleTimeoutMs: 2500,
      maxSseEventBytes: 65536,
    });
    expect(proxySettingsFromVars({ PROXY_IDLE_TIMEOUT_MS: '0' })).toEqual({ idleTimeoutMs: 0 });
    expect(() => proxySettingsFromVars({ PROXY_IDLE_TIMEOUT_MS: '-1' })).toThrow(ConfigError);
    expect(() => proxySettingsFromVars({ PROXY_IDLE_TIMEOUT_MS: '5s' })).toThrow(ConfigError);
    expect(() => proxySettingsFromVars({ PROXY_MAX_SSE_EVENT_BYTES: '100' })).toThrow(ConfigError);
    expect(() => proxySettingsFromVars({ PROXY_MAX_SSE_EVENT_BYTES: '1MiB' })).toThrow(ConfigError);
  });
});
