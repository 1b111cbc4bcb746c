/**
 * The proxy's upstream fetch on Node (the Node edge: imported lazily by `startNodeServer`,
 * never by the runtime-neutral proxy), HTTP/1.1 over `node:http` / `node:https` with one
 * keep-alive agent per server, answering a standard `Response` whose body streams as the bytes
 * arrive. Workers and Deno use their native `fetch`; on Node the global `fetch` (undici) cannot
 * serve, for three reasons, each checked in `test/proxy/node-upstream-fetch.test.ts`:
 *
 * - **A stale pooled connection fails the request.** When the upstream has closed a kept-alive
 *   connection the pool still holds (a selection that held the event loop past the upstream's
 *   keep-alive timeout), undici rejects the POST with `UND_ERR_SOCKET`: it never resends a
 *   non-idempotent request. The upstream never read it, so it is safe to send once more, on a
 *   connection of its own ("sends a request once more on a fresh connection when a pooled one
 *   turns out closed"; undici answers 200, 200, then `fetch failed` there).
 * - **A large body would hold the event loop.** An 8 MiB prompt is written 256 KiB at a time,
 *   a turn of the event loop between pieces and after `drain`, so the proxy's other requests
 *   keep moving ("writes a large body in 256 KiB pieces…"; undici hands a byte body to the
 *   socket in one write).
 * - **Its per-call cost is most of the proxy's own.** undici spends about half a millisecond of
 *   JavaScript per call on its spec machinery (Request/Response objects, body streams, the fetch
 *   algorithm's steps); the proxy's own work is well under a millisecond (docs/proxy.md, the
 *   bench's "Upstream call" row: +0.55 ms a request).
 *
 * It covers what the proxy asks of fetch: a string or byte body, `redirect: 'manual'`, an
 * abort signal, and response bodies decoded as fetch would (gzip, deflate, br). Anything else
 * (a stream body, followed redirects, another scheme) goes to the global fetch unchanged.
 */
import type { ClientRequest, Agent as HttpAgent, IncomingMessage, RequestOptions } from 'node:http';
import { Agent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { FetchLike } from '../../model/http.js';

/** A fetch with its own connection pools, and a way to close them. */
export interface NodeUpstreamFetch {
  readonly fetch: FetchLike;
  /** Closes the pooled connections (when the server stops). */
  close(): void;
}

// Statuses whose responses never carry a body (fetch refuses a body for them).
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

// Failures of a pooled connection the server had already closed: safe to send once more,
// since the server never read the request.
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

/**
 * A keep-alive fetch for upstream calls.
 *
 * @example
 * const upstream = nodeUpstreamFetch()
 * const app = createApp({ registry, proxy: { fetch: upstream.fetch } })
 * // on shutdown: upstream.close()
 */
export function nodeUpstreamFetch(): NodeUpstreamFetch {
  const agents = {
    'http:': new Agent({ keepAlive: true, scheduling: 'lifo' }),
    'https:': new HttpsAgent({ keepAlive: true, scheduling: 'lifo' }),
  };
  const fetch: FetchLike = (input, init) => {
    const url = new URL(input);
    const body = requestBytes(init.body);
    if (init.redirect !== 'manual' || body === false || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      return globalThis.fetch(input, init);
    }
    const agent = agents[url.protocol];
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    if (body) headers['content-length'] = String(body.byteLength);
    const options: RequestOptions = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: init.method ?? 'GET',
      headers,
      agent: agent as HttpAgent,
    };
    return send(url.protocol === 'https:' ? httpsRequest : httpRequest, options, body, init.signal ?? undefined, true);
  };
  return {
    fetch,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

type RequestFn = typeof httpRequest;

function send(
  request: RequestFn,
  options: RequestOptions,
  body: Uint8Array | undefined,
  signal: AbortSignal | undefined,
  mayRetry: boolean,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const req = request(options);
    let answered = false;
    const onAbort = () =>
      req.destroy(
        signal?.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError'),
      );
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => signal?.removeEventListener('abort', onAbort);
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      res.once('close', done);
      try {
        resolve(toResponse(res, options.method === 'HEAD'));
      } catch (error) {
        res.destroy();
        reject(error);
      }
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      done();
      if (answered) return; // the body stream reports it
      if (signal?.aborted) return reject(signal.reason);
      if (mayRetry && req.reusedSocket && error.code !== undefined && STALE_SOCKET.has(error.code)) {
        // Other pooled connections may be just as stale: this once, a connection of its own.
        resolve(send(request, { ...options, agent: false }, body, signal, false));
        return;
      }
      reject(new TypeError(`fetch failed: ${error.message}`, { cause: error }));
    });
    if (!body || body.byteLength <= WRITE_PIECE_BYTES) req.end(body);
    else void writeInPieces(req, body);
  });
}

// A large body goes out a piece at a time with a turn of the event loop between pieces: one
// 8 MiB write to a socket held the event loop for about 14 ms (the copy into the socket), a
// 1 MiB piece 1–2 ms.
const WRITE_PIECE_BYTES = 256 * 1024;

/**
 * Write `body` to `req` in pieces of 256 KiB, a turn of the event loop between pieces (or until
 * `drain` when the socket is full), ending the request with the last. @internal
 *
 * @example
 * void writeInPieces(req, bytes)
 */
export async function writeInPieces(
  req: Pick<ClientRequest, 'write' | 'end' | 'destroyed' | 'once' | 'off'>,
  body: Uint8Array,
): Promise<void> {
  for (let at = 0; at < body.byteLength; at += WRITE_PIECE_BYTES) {
    if (req.destroyed) return; // its error or abort is reported on the request
    const piece = body.subarray(at, at + WRITE_PIECE_BYTES);
    if (at + WRITE_PIECE_BYTES >= body.byteLength) {
      req.end(piece);
      return;
    }
    const flowing = req.write(piece);
    await new Promise<void>((next) => {
      if (flowing) return setImmediate(next);
      // Wait until the socket takes more, or the request ends some other way, then a turn: on
      // loopback 'drain' can come within the same turn as the write, and pieces written from it
      // alone went out a dozen at a time.
      const on = () => {
        req.off('drain', on);
        req.off('close', on);
        setImmediate(next);
      };
      req.once('drain', on);
      req.once('close', on);
    });
  }
}

function toResponse(res: IncomingMessage, head: boolean): Response {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const status = res.statusCode ?? 502;
  const init = { status, statusText: res.statusMessage ?? '', headers };
  if (head || NULL_BODY.has(status)) {
    res.resume();
    return new Response(null, init);
  }
  const decoder = decoderFor(headers.get('content-encoding'));
  let source: Readable = res;
  if (decoder) {
    // As fetch does: the body is decoded, and its encoding and length no longer describe it.
    headers.delete('content-encoding');
    headers.delete('content-length');
    source = res.pipe(decoder);
    res.once('error', (error) => decoder.destroy(error));
    decoder.once('close', () => res.destroy());
  }
  return new Response(webStream(source), init);
}

/**
 * A Node stream as a web stream, chunk by chunk as it arrives, paused while the reader lags.
 * (Cheaper per response than `Readable.toWeb`, which sets up far more machinery.)
 */
function webStream(source: Readable): ReadableStream<Uint8Array> {
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      source.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) source.pause();
      });
      source.once('end', () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        controller.error(error);
      };
      source.once('error', fail);
      // A connection that drops mid-body may close the stream without an error of its own.
      source.once('close', () => fail(new TypeError('the upstream connection closed before the body ended')));
    },
    pull() {
      source.resume();
    },
    cancel() {
      settled = true;
      source.destroy();
    },
  });
}

function decoderFor(encoding: string | null) {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** The body as bytes; undefined for none; false for a kind this fetch leaves to the global one. */
function requestBytes(body: RequestInit['body']): Uint8Array | undefined | false {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return false;
}
