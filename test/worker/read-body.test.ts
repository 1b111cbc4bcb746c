/**
 * The one request-body reader (src/hono/read-body.ts) behind the API's JSON routes and the
 * proxy: an oversized chunked upload is read to its end (up to the drain bound) before the 413,
 * through one reader whose reads never overlap (in workerd a second pending read throws, which
 * made the old drain fail and the 413 go out mid-upload), and both callers treat it alike.
 */
import { Hono } from 'hono';
import { every } from 'hono/combine';
import { describe, expect, it } from 'vitest';
import { jsonBody } from '../../src/hono/json-body.js';
import { readBodyText } from '../../src/hono/proxy/read-body.js';
import { BodyReadError, readBody } from '../../src/hono/read-body.js';

const KiB = 1024;

/**
 * A chunked upload of `chunks` × 16 KiB that records how much was pulled and fails the test's
 * expectations if a read starts while another is pending (what workerd refuses).
 */
function upload(chunks: number | 'endless') {
  const state = { pulled: 0, overlapped: false, cancelled: false, pending: false };
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (state.pending) state.overlapped = true;
        state.pending = true;
        await new Promise((done) => setTimeout(done, 0));
        state.pending = false;
        if (chunks !== 'endless' && sent >= chunks) return controller.close();
        sent += 1;
        state.pulled += 16 * KiB;
        controller.enqueue(new Uint8Array(16 * KiB).fill(0x20));
      },
      cancel() {
        state.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  const request = new Request('http://x/v1/select', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
  return { request, state };
}

describe('readBody', () => {
  it('drains an oversized chunked upload to its end before refusing it, one read at a time', async () => {
    const { request, state } = upload(25); // 400 KiB against 256 KiB
    const refused = await readBody(request, { maxBytes: 256 * KiB }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BodyReadError);
    expect((refused as BodyReadError).reason).toBe('too_large');
    expect(state.pulled).toBe(400 * KiB);
    expect(state.overlapped).toBe(false);
  });

  it('stops draining at drainBytes and cancels the rest', async () => {
    const { request, state } = upload('endless');
    await expect(readBody(request, { maxBytes: 64 * KiB, drainBytes: 128 * KiB })).rejects.toThrow(
      'the body exceeds 64 KiB',
    );
    expect(state.pulled).toBeLessThanOrEqual((64 + 16 + 128 + 16) * KiB);
    expect(state.cancelled).toBe(true);
  });

  it('refuses a declared length over the limit without reading a byte', async () => {
    const { request, state } = upload(25);
    const declared = new Request(request, {
      headers: { 'content-type': 'application/json', 'content-length': String(400 * KiB) },
    });
    await expect(readBody(declared, { maxBytes: 256 * KiB })).rejects.toThrow(BodyReadError);
    expect(state.pulled).toBe(0);
  });
});

describe('the API and the proxy read bodies the same way', () => {
  const app = new Hono();
  app.onError((error, c) =>
    c.json(
      { error: { code: (error as { code?: string }).code, message: error.message } },
      (error as { status?: 413 }).status ?? 500,
    ),
  );
  app.post('/v1/select', every(...jsonBody({ maxBytes: 256 * KiB })), async (c) => c.json(await c.req.json()));

  it('an oversized chunked upload: drained to its end, then 413, on both', async () => {
    const api = upload(25);
    const response = await app.request(api.request);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
    expect(api.state.pulled).toBe(400 * KiB);

    const proxy = upload(25);
    const refused = (await readBodyText(proxy.request, 256 * KiB).catch((error: unknown) => error)) as {
      status: number;
    };
    expect(refused.status).toBe(413);
    expect(proxy.state.pulled).toBe(400 * KiB);
    expect(api.state.overlapped || proxy.state.overlapped).toBe(false);
  });

  it('a body within the limit reaches the route whole', async () => {
    const text = JSON.stringify({ prompt: 'café ☕ '.repeat(1000) });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text);
        controller.enqueue(bytes.subarray(0, 100));
        controller.enqueue(bytes.subarray(100));
        controller.close();
      },
    });
    const response = await app.request(
      new Request('http://x/v1/select', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(JSON.parse(text));
  });
});
