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
import { BodyReadError, decodeBody, decodeBodyInSteps, readBody } from '../../src/hono/read-body.js';
import { uploadBudget } from '../../src/hono/upload-budget.js';

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

  it('reads a large declared body as it streams: the same bytes, one read at a time', async () => {
    const { request, state } = upload(8);
    const bytes = new Uint8Array(128 * KiB).map((_, i) => (i * 7) % 251);
    let at = 0;
    const patterned = new Request(request.url, {
      method: 'POST',
      headers: { 'content-length': String(bytes.byteLength) },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (at >= bytes.byteLength) return controller.close();
          controller.enqueue(bytes.slice(at, at + 10_000)); // cuts that do not fall on 16 KiB
          at += 10_000;
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(await readBody(patterned, { maxBytes: 256 * KiB })).toEqual(bytes);
    const declared = new Request(request, { headers: { 'content-length': String(128 * KiB) } });
    const read = await readBody(declared, { maxBytes: 256 * KiB });
    expect(read.byteLength).toBe(128 * KiB);
    expect(state.overlapped).toBe(false);
  });

  it('refuses a streamed body that sends more than it declared', async () => {
    const { request, state } = upload(8); // 128 KiB sent
    const understated = new Request(request, { headers: { 'content-length': String(100 * KiB) } });
    const refused = await readBody(understated, { maxBytes: 256 * KiB }).catch((e) => e);
    expect(refused).toBeInstanceOf(BodyReadError);
    expect((refused as BodyReadError).reason).toBe('too_large');
    expect(state.cancelled).toBe(true);
  });
});

/**
 * An upload declaring `declared` bytes that sends `sent` bytes in 16 KiB chunks and then waits,
 * as a client that stops mid-body; `fail()` ends it as a client going away would.
 */
function stalledUpload(declared: number, sent: number) {
  let pulled = 0;
  let stop!: (reason: Error) => void;
  const stopped = new Promise<never>((_, reject) => {
    stop = reject;
  });
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (pulled >= sent) await stopped;
        const chunk = Math.min(16 * KiB, sent - pulled);
        pulled += chunk;
        controller.enqueue(new Uint8Array(chunk).fill(0x20));
      },
    },
    { highWaterMark: 0 },
  );
  stopped.catch(() => undefined);
  const request = new Request('http://x/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': String(declared) },
    body,
    duplex: 'half',
  } as RequestInit);
  return { request, pulled: () => pulled, fail: () => stop(new Error('the client went away')) };
}

// Until `check` holds, a turn at a time (the reads are macrotasks apart).
async function until(check: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1000 && !check(); turn++) await new Promise((done) => setTimeout(done, 1));
  expect(check()).toBe(true);
}

describe('what unfinished uploads hold', () => {
  it('a body declaring 8 MiB that sends 64 KiB allocates about 64 KiB, not 8 MiB', async () => {
    // Every Uint8Array made by size while the upload is pending, largest first at the end.
    const sizes: number[] = [];
    const Original = globalThis.Uint8Array;
    class Recording extends Original {
      constructor(...args: unknown[]) {
        if (typeof args[0] === 'number') sizes.push(args[0]);
        super(...(args as [number]));
      }
    }
    const upload = stalledUpload(8 * 1024 * KiB, 64 * KiB);
    const budget = uploadBudget(64 * 1024 * KiB);
    globalThis.Uint8Array = Recording as Uint8ArrayConstructor;
    const reading = readBody(upload.request, { maxBytes: 8 * 1024 * KiB, budget }).catch((error: unknown) => error);
    try {
      await until(() => upload.pulled() === 64 * KiB);
      await new Promise((done) => setTimeout(done, 10));
    } finally {
      globalThis.Uint8Array = Original;
    }
    // It was an 8 MiB buffer from the first byte (32 such uploads: 256 MiB for 2 MiB sent).
    expect(Math.max(0, ...sizes)).toBeLessThanOrEqual(128 * KiB);
    expect(budget.held).toBeLessThanOrEqual(128 * KiB);
    expect(budget.held).toBeGreaterThanOrEqual(64 * KiB);
    upload.fail();
    expect(await reading).toBeInstanceOf(Error);
    expect(budget.held).toBe(0); // given back when the client went away
  });

  it('uploads past the shared budget are refused and let go; one within it still reads', async () => {
    const budget = uploadBudget(1024 * KiB);
    const first = stalledUpload(4096 * KiB, 384 * KiB);
    const firstRead = readBody(first.request, { maxBytes: 8192 * KiB, budget }).catch((error: unknown) => error);
    await until(() => first.pulled() === 384 * KiB);
    await new Promise((done) => setTimeout(done, 10));
    const held = budget.held; // 512 KiB: the buffer doubled up to the bytes sent
    expect(held).toBeGreaterThanOrEqual(384 * KiB);
    expect(held).toBeLessThanOrEqual(768 * KiB);

    // A second unfinished upload grows until it would pass the budget: refused, its bytes let go.
    const second = stalledUpload(4096 * KiB, 1024 * KiB);
    const refused = await Promise.race([
      readBody(second.request, { maxBytes: 8192 * KiB, budget, drainBytes: 0 }).catch((error: unknown) => error),
      new Promise((done) => setTimeout(() => done('still reading'), 5000)),
    ]);
    expect(refused).toBeInstanceOf(BodyReadError);
    expect((refused as BodyReadError).reason).toBe('busy');
    expect(budget.held).toBe(held);

    // A whole body within what is left reads as ever.
    const small = new Uint8Array(200 * KiB).fill(0x61);
    const within = new Request('http://x/v1/select', {
      method: 'POST',
      headers: { 'content-length': String(small.byteLength) },
      body: small,
    });
    expect(await readBody(within, { maxBytes: 8192 * KiB, budget })).toEqual(small);
    expect(budget.held).toBe(held);

    first.fail();
    expect(await firstRead).toBeInstanceOf(Error);
    expect(budget.held).toBe(0);
  });
});

describe('decodeBodyInSteps', () => {
  const pause = () => new Promise<void>((done) => setTimeout(done, 0));

  it('gives decodeBody’s text for pieces cut inside characters, pausing between them', async () => {
    const small = new TextEncoder().encode('\uFEFFa€😀ü\uFEFF'.repeat(20));
    for (const piece of [1, 2, 3, 5]) {
      expect(await decodeBodyInSteps(small, pause, piece)).toBe(decodeBody(small));
    }
    const bytes = new TextEncoder().encode(`${'\uFEFFa€😀ü'.repeat(3000)}\uFEFF${'b€'.repeat(999)}`);
    let pauses = 0;
    const counted = () => {
      pauses += 1;
      return pause();
    };
    for (const piece of [1000, 4096]) {
      expect(await decodeBodyInSteps(bytes, counted, piece)).toBe(decodeBody(bytes));
    }
    expect(pauses).toBeGreaterThan(bytes.byteLength / 4096);
  });

  it('refuses what decodeBody refuses, wherever the bad byte falls', async () => {
    const good = new TextEncoder().encode('x€'.repeat(2000));
    for (const at of [0, 1, 2999, 3000, good.byteLength - 1]) {
      const bad = good.slice();
      bad[at] = 0xff;
      expect(() => decodeBody(bad)).toThrow(BodyReadError);
      await expect(decodeBodyInSteps(bad, pause, 1000)).rejects.toThrow('the body is not valid UTF-8');
    }
    const truncated = good.slice(0, good.byteLength - 1); // ends inside a character
    await expect(decodeBodyInSteps(truncated, pause, 1000)).rejects.toThrow(BodyReadError);
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
