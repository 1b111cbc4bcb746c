/**
 * Raw HTTP/1.1 over a loopback TCP socket, for requests `fetch` refuses to send (a bad or
 * lying `Content-Length`, `OPTIONS` on `/`): the suite's `Endpoint.raw` on Node.
 */
import { connect } from 'node:net';
import type { RawExchange, RawReply } from './suite.js';

/**
 * Send `exchange.head` (request line and headers, without the blank line) and `exchange.body`,
 * then read until the server answers with a complete head and body, closes, or `timeoutMs` passes.
 *
 * @example
 * const reply = await rawHttp('http://127.0.0.1:8787', { head: 'OPTIONS / HTTP/1.1' })
 */
export function rawHttp(origin: string, exchange: RawExchange): Promise<RawReply> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let data = Buffer.alloc(0);
    const done = (timedOut: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseReply(data.toString('utf8'), timedOut));
    };
    const timer = setTimeout(() => done(true), exchange.timeoutMs ?? 5000);
    socket.on('connect', () => {
      socket.write(`${exchange.head}\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
      if (exchange.body !== undefined) socket.write(exchange.body);
    });
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const reply = parseReply(data.toString('utf8'), false);
      if (reply.complete) done(false);
    });
    socket.on('end', () => done(false));
    socket.on('error', (error) => (data.length > 0 ? done(false) : reject(error)));
  });
}

function parseReply(text: string, timedOut: boolean): RawReply & { complete: boolean } {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return { status: 0, headers: {}, body: '', timedOut, complete: false };
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  let complete = false;
  if (headers['content-length'] !== undefined) complete = Buffer.byteLength(body) >= Number(headers['content-length']);
  else if (/chunked/i.test(headers['transfer-encoding'] ?? '')) {
    complete = /(^|\r\n)0\r\n\r\n$/.test(body);
    if (complete) body = dechunk(body);
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body, timedOut, complete };
}

function dechunk(text: string): string {
  let out = '';
  let rest = text;
  while (true) {
    const line = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, line), 16);
    if (!size) return out;
    out += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 2 + size + 2);
  }
}
