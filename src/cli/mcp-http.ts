/**
 * `loopctl mcp --http`: the gateway over MCP Streamable HTTP on Node, at `/mcp`, through
 * `@hono/node-server` (a dependency of the MCP SDK, so present wherever the gateway runs).
 */
import type { AddressInfo } from 'node:net';
import type { McpGateway } from '../adapters/mcp/gateway.js';
import { errorMessage } from '../describe-error.js';
import { untilStopped } from './until-stopped.js';

/**
 * The port `--http` listens on when none is given.
 *
 * @example
 * new URL(`http://127.0.0.1:${DEFAULT_HTTP_PORT}/mcp`)
 */
export const DEFAULT_HTTP_PORT = 8788;

/** The MCP endpoint's path. */
const ENDPOINT = '/mcp';

/**
 * Whether `host` is a loopback address or name (only this machine can reach it).
 *
 * @example
 * isLoopback('127.0.0.1') // true
 * isLoopback('0.0.0.0') // false
 */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** Where and how `--http` serves. */
export interface HttpServeOptions {
  readonly host: string;
  readonly port: number;
  readonly exposeFound: boolean;
  /** Required of every request when set (`Authorization: Bearer TOKEN`). */
  readonly token: string | undefined;
  /** Stops the server when aborted. Default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
}

/**
 * Serve `gateway` at `http://HOST:PORT/mcp` until SIGINT or SIGTERM (or `signal`), then close
 * every session and the gateway; resolves with exit code 0. On the loopback only loopback
 * `Host` names are accepted, so a DNS-rebound web page cannot reach it.
 *
 * @example
 * await serveHttp(gateway, { host: '127.0.0.1', port: 8788, exposeFound: false, token: undefined }, console.error)
 */
export async function serveHttp(
  gateway: McpGateway,
  options: HttpServeOptions,
  log: (line: string) => void,
): Promise<number> {
  const [{ gatewayHttp }, { serve }] = await Promise.all([
    import('../adapters/mcp/gateway-http.js'),
    importNodeServer(),
  ]);
  const { host, port, exposeFound, token } = options;
  // Requests wait for the handler, which needs the port (0 picks one) for its allowed hosts.
  let ready!: (handler: (request: Request) => Promise<Response>) => void;
  const handler = new Promise<(request: Request) => Promise<Response>>((done) => {
    ready = done;
  });
  const fetch = async (request: Request): Promise<Response> =>
    new URL(request.url).pathname === ENDPOINT
      ? (await handler)(request)
      : new Response(`the MCP endpoint is ${ENDPOINT}\n`, { status: 404 });
  let server!: ReturnType<typeof serve>;
  const info = await new Promise<AddressInfo>((done, fail) => {
    server = serve({ fetch, port, hostname: host }, done);
    server.once('error', (error: Error) =>
      fail(new Error(`cannot listen on ${host}:${port} (${errorMessage(error)})`)),
    );
  });
  // On the loopback only loopback Host names: a DNS-rebound web page is refused.
  const allowedHosts = isLoopback(host)
    ? ['127.0.0.1', 'localhost', '[::1]'].map((name) => `${name}:${info.port}`)
    : undefined;
  const http = await gatewayHttp(gateway, {
    exposeFound,
    ...(token ? { token } : {}),
    ...(allowedHosts ? { allowedHosts } : {}),
  });
  ready(http.fetch);
  const shown = info.address.includes(':') ? `[${info.address}]` : info.address;
  log(
    `MCP over Streamable HTTP at http://${shown}:${info.port}${ENDPOINT}${token ? ' (bearer token: LOOPCTL_TOKEN)' : ''}`,
  );
  await untilStopped(options.signal);
  await http.close();
  await new Promise<void>((done) => {
    server.close(() => done());
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
  await gateway.close();
  return 0;
}

async function importNodeServer(): Promise<typeof import('@hono/node-server')> {
  // A variable, not a literal: the bundler leaves the specifier to Node.
  const [name] = ['@hono/node-server'];
  try {
    return await import(name);
  } catch (error) {
    throw new Error(
      `loopctl mcp --http needs @hono/node-server (the MCP SDK depends on it): npm install @hono/node-server (${errorMessage(error)})`,
      { cause: error },
    );
  }
}
