/**
 * The proxy's upstream fetch on Node (`node:http` over a keep-alive pool) and how the proxy
 * hands an upstream body to the client: connection reuse, a stale pooled connection retried
 * once, bodies decoded as fetch decodes them, aborts, unreachable hosts, null-body statuses;
 * event streams pass through as streams, small declared JSON answers go whole.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeUpstreamFetch, writeInPieces } from '../../src/hono/proxy/node-upstream-fetch.js';
import { clientBody, WHOLE_BODY_MAX_BYTES } from '../../src/hono/proxy/response-body.js';
import { holdUnreachablePort } from '../support/unreachable-port.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, socket: Socket) => void;

const servers: Server[] = [];
const pools: { close(): void }[] = [];

afterEach(async () => {
  for (const pool of pools.splice(0)) pool.close();
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
    ),
  );
});

async function serve(handler: Handler): Promise<{ url: string; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8'), req.socket));
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', () => connections++);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
}

function pool() {
  const upstream = nodeUpstreamFetch();
  pools.push(upstream);
  return upstream.fetch;
}

const post = (body: string, extra: RequestInit = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body,
  redirect: 'manual',
  ...extra,
});

describe('nodeUpstreamFetch', () => {
  it('sends the exact body and headers, and reuses one connection for sequential requests', async () => {
    const seen: { method: string; url: string; body: string; type: string | undefined; length: string | undefined }[] =
      [];
    const upstream = await serve((req, res, body) => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body,
        type: req.headers['content-type'],
        length: req.headers['content-length'],
      });
      res
        .writeHead(200, { 'content-type': 'application/json', 'x-request-id': `r${seen.length}` })
        .end(`{"n":${seen.length}}`);
    });
    const fetch = pool();
    const body = '{"model":"m","text":"café ☕"}';
    for (let i = 1; i <= 5; i++) {
      const response = await fetch(`${upstream.url}/v1/chat/completions?x=1`, post(body));
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe(`r${i}`);
      expect(await response.json()).toEqual({ n: i });
    }
    expect(seen[0]).toEqual({
      method: 'POST',
      url: '/v1/chat/completions?x=1',
      body,
      type: 'application/json',
      length: String(Buffer.byteLength(body)),
    });
    expect(upstream.connections()).toBe(1);
  });

  it('sends a large body a piece at a time: the exact bytes and length, with timers running between pieces', async () => {
    const seen: { bytes: number; length: string | undefined; same: boolean }[] = [];
    const sentText = `{"text":"${'é☕ weather in Oslo '.repeat(300_000)}"}`; // about 6.6 MiB
    const upstream = await serve((req, res, body) => {
      seen.push({ bytes: Buffer.byteLength(body), length: req.headers['content-length'], same: body === sentText });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const bytes = new TextEncoder().encode(sentText);
    let ticks = 0;
    let running = true;
    const tick = () => {
      ticks += 1;
      if (running) setImmediate(tick);
    };
    const fetch = pool();
    const answer = fetch(`${upstream.url}/v1/messages`, { ...post(''), body: bytes });
    setImmediate(tick);
    const response = await answer;
    running = false;
    expect(response.status).toBe(200);
    expect(seen).toEqual([{ bytes: bytes.byteLength, length: String(bytes.byteLength), same: true }]);
    expect(ticks).toBeGreaterThan(Math.floor(bytes.byteLength / (256 * 1024))); // a turn between pieces
  });

  it('writes a large body in 256 KiB pieces with a turn of the event loop between them, and waits for drain', async () => {
    const log: string[] = [];
    const full = new Set([2]); // the socket is full after the third piece
    let writes = 0;
    const emitter = new EventEmitter();
    const req = Object.assign(emitter, {
      destroyed: false,
      write(piece: Uint8Array) {
        log.push(`write ${piece.byteLength}`);
        return !full.has(writes++);
      },
      end(piece: Uint8Array) {
        log.push(`end ${piece.byteLength}`);
        return req;
      },
    });
    let running = true;
    const tick = () => {
      if (log.at(-1) !== 'tick') log.push('tick');
      if (running) setImmediate(tick);
    };
    setImmediate(tick);
    const MiB = 256 * 1024; // one piece
    const written = writeInPieces(req as never, new Uint8Array(4 * MiB + 10));
    await new Promise((done) => setTimeout(done, 20));
    expect(log.filter((entry) => entry !== 'tick')).toEqual([`write ${MiB}`, `write ${MiB}`, `write ${MiB}`]);
    emitter.emit('drain');
    await written;
    running = false;
    expect(log.filter((entry) => entry !== 'tick')).toEqual([
      `write ${MiB}`,
      `write ${MiB}`,
      `write ${MiB}`,
      `write ${MiB}`,
      'end 10',
    ]);
    // Never two pieces in one turn.
    for (let i = 1; i < log.length; i++) if (log[i] !== 'tick') expect(log[i - 1], log.join()).toBe('tick');
  });

  it('a large body to an upstream that closes mid-upload rejects, and nothing hangs', async () => {
    const upstream = await serve(() => undefined);
    const server = servers.at(-1) as Server;
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage) => {
      req.once('data', () => req.socket.destroy()); // the first piece, then gone
    });
    const fetch = pool();
    const bytes = new Uint8Array(16 * 1024 * 1024).fill(0x20);
    await expect(fetch(`${upstream.url}/v1/messages`, { ...post(''), body: bytes })).rejects.toThrow(/fetch failed/);
  });

  it('sends a request once more on a fresh connection when a pooled one turns out closed', async () => {
    const perSocket = new WeakMap<Socket, number>();
    let answered = 0;
    const upstream = await serve((_req, res, _body, socket) => {
      const count = (perSocket.get(socket) ?? 0) + 1;
      perSocket.set(socket, count);
      // The server gives up on every connection after its first request, without a word.
      if (count > 1) return socket.destroy();
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    const fetch = pool();
    for (let i = 0; i < 3; i++) expect((await fetch(`${upstream.url}/x`, post('{}'))).status).toBe(200);
    expect(answered).toBe(3);
    expect(upstream.connections()).toBe(3);
  });

  it('decodes a gzip body as fetch does, and drops its encoding and length', async () => {
    const json = JSON.stringify({ text: 'x'.repeat(5000) });
    const upstream = await serve((req, res) => {
      expect(req.headers['accept-encoding']).toMatch(/gzip/);
      const zipped = gzipSync(json);
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': String(zipped.byteLength),
        })
        .end(zipped);
    });
    const response = await pool()(`${upstream.url}/x`, post('{}'));
    expect(response.headers.has('content-encoding')).toBe(false);
    expect(response.headers.has('content-length')).toBe(false);
    expect(await response.text()).toBe(json);
  });

  it('answers a 204 with no body, passes error statuses and their headers through', async () => {
    const upstream = await serve((req, res) => {
      if (req.url === '/empty') return res.writeHead(204).end();
      res
        .writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' })
        .end('{"error":{"message":"slow down"}}');
    });
    const fetch = pool();
    const empty = await fetch(`${upstream.url}/empty`, post('{}'));
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    const limited = await fetch(`${upstream.url}/limited`, post('{}'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.json()).toEqual({ error: { message: 'slow down' } });
  });

  it('an abort while waiting rejects with the reason and closes the connection', async () => {
    let closed!: () => void;
    const serverSawClose = new Promise<void>((done) => {
      closed = done;
    });
    const upstream = await serve((_req, _res, _body, socket) => {
      socket.once('close', closed); // never answers
    });
    const controller = new AbortController();
    const pending = pool()(`${upstream.url}/hang`, post('{}', { signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('client left')), 50);
    await expect(pending).rejects.toThrow('client left');
    await serverSawClose;
  });

  it('streams the body as it arrives, and a connection lost mid-body errors the stream', async () => {
    let finish!: () => void;
    const upstream = await serve((_req, res, _body, socket) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => socket.destroy();
    });
    const response = await pool()(`${upstream.url}/stream`, post('{}'));
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    finish();
    await expect(reader.read()).rejects.toThrow();
  });

  it('an unreachable upstream rejects as fetch does', async () => {
    const unreachable = await holdUnreachablePort();
    try {
      await expect(pool()(`${unreachable.origin}/x`, post('{}'))).rejects.toThrow(TypeError);
    } finally {
      await unreachable.close();
    }
  });
});

describe('clientBody', () => {
  const upstream = (body: BodyInit, headers: Record<string, string>) => new Response(body, { headers });
  const chunked = (parts: readonly string[]) =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
        controller.close();
      },
    });

  it('passes an event stream through as the same stream, never gathered', async () => {
    const response = upstream(chunked(['data: {}\n\n', 'data: [DONE]\n\n']), {
      'content-type': 'text/event-stream; charset=utf-8',
    });
    const stream = response.body;
    expect(await clientBody(response)).toBe(stream);
  });

  it('sends a JSON answer whole, byte for byte, declared length or chunked', async () => {
    const json = '{"id":"chatcmpl-1","choices":[{"message":{"content":"héllo"}}]}';
    const declared = await clientBody(
      upstream(json, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) }),
    );
    expect(declared).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(declared as Uint8Array)).toBe(json);
    const pieces = await clientBody(
      upstream(chunked([json.slice(0, 10), json.slice(10, 30), json.slice(30)]), {
        'content-type': 'application/json',
      }),
    );
    expect(pieces).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(pieces as Uint8Array)).toBe(json);
  });

  it('rejects when a declared-length answer is cut short, so the proxy answers 502 instead of a partial body', async () => {
    const json = '{"id":"chatcmpl-1","choices":[]}';
    const cut = () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(json.slice(0, 10)));
          controller.error(new TypeError('Network connection lost.'));
        },
      });
    await expect(
      clientBody(upstream(cut(), { 'content-type': 'application/json', 'content-length': String(json.length) })),
    ).rejects.toThrow('connection lost');
    await expect(clientBody(upstream(cut(), { 'content-type': 'application/json' }))).rejects.toThrow(
      'connection lost',
    );
  });

  it('streams an answer longer than the limit, every byte in order', async () => {
    const part = 'x'.repeat(WHOLE_BODY_MAX_BYTES / 2);
    const parts = [part, part, part, '{"end":true}'];
    const declaredLarge = upstream(parts.join(''), {
      'content-type': 'application/json',
      'content-length': String(parts.join('').length),
    });
    const declaredStream = declaredLarge.body;
    expect(await clientBody(declaredLarge)).toBe(declaredStream);
    const body = await clientBody(upstream(chunked(parts), { 'content-type': 'application/json' }));
    expect(body).toBeInstanceOf(ReadableStream);
    expect(await new Response(body as ReadableStream<Uint8Array>).text()).toBe(parts.join(''));
  });

  it('cancelling the continued stream cancels the upstream body', async () => {
    let cancelled: unknown;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new Uint8Array(64 * 1024));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const body = (await clientBody(
      upstream(endless, { 'content-type': 'application/json' }),
    )) as ReadableStream<Uint8Array>;
    expect(body).toBeInstanceOf(ReadableStream);
    await body.cancel('client left');
    expect(cancelled).toBe('client left');
  });
});
