/**
 * A loopback address where no server will ever answer, for the "model not started" and
 * "upstream down" tests. Picking a free port and closing it races with everything else on the
 * machine: on a busy one another process bound the port before the test used it, and a check
 * expecting 503 got that process's 200. So the port stays bound by this process (nobody else can
 * bind it) and every connection to it is reset at once: the client sees a network failure
 * (ECONNRESET), the same path as a refused connection. Runs in Node and in Deno (`node:net`),
 * and serves workerd tests from their Node global setup.
 */
import { createServer, type Socket } from 'node:net';

/** A held loopback port that resets every connection. */
export interface UnreachablePort {
  readonly port: number;
  /** `http://127.0.0.1:{port}` (no trailing slash). */
  readonly origin: string;
  /** Lets the port go. */
  close(): Promise<void>;
}

function reset(socket: Socket): void {
  // The peer may already be gone; its error is of no interest here.
  socket.on('error', () => undefined);
  socket.resetAndDestroy();
}

/**
 * Bind a loopback port and hold it, answering every connection with a TCP reset.
 *
 * @example
 * const dead = await holdUnreachablePort()
 * const app = createApp({ ...optionsFromVars({ MODEL_BASE_URL: `${dead.origin}/v1` }), registry })
 * // … /v1/runs answers 503, the proxy 502
 * await dead.close()
 */
export async function holdUnreachablePort(): Promise<UnreachablePort> {
  const server = createServer(reset);
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', fail);
      done();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('holdUnreachablePort: no TCP address');
  const { port } = address;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
