/**
 * Raw HTTP/1.1 over a loopback TCP socket, for requests `fetch` refuses to send (a bad or
 * lying `Content-Length`, `OPTIONS` on `/`): the suite's `Endpoint.raw` on Node.
 */
import { connect } from 'node:net';
import type { RawExchange, RawReply } from './suite.js';
import { parseRawReply } from './suite.js';

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
      resolve(parseRawReply(data.toString('utf8'), timedOut));
    };
    const timer = setTimeout(() => done(true), exchange.timeoutMs ?? 5000);
    socket.on('connect', () => {
      socket.write(`${exchange.head}\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
      if (exchange.body !== undefined) socket.write(exchange.body);
    });
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const reply = parseRawReply(data.toString('utf8'), false);
      if (reply.complete) done(false);
    });
    socket.on('end', () => done(false));
    socket.on('error', (error) => (data.length > 0 ? done(false) : reject(error)));
  });
}
