/**
 * The gateway over MCP Streamable HTTP with nothing held between requests: each request gets a
 * fresh SDK `Server` and a sessionless transport over the shared `McpGateway`, and answers with
 * plain JSON. So any process, or any Workers isolate, can serve any request of a client. The one
 * thing a session remembers, the tools its searches found (`exposeFound`), lives in a
 * {@link GatewaySessions} store under a session id this handler gives at `initialize`. A request
 * of MCP 2026-07-28 (sessionless by design) is served by SDK v2 over the same gateway, with the
 * fixed list: `gateway-server-modern.ts`.
 *
 * It checks no token and no host: mount it behind the app's own gate (`createApp` serves it at
 * `/mcp` behind `LOOPCTL_TOKEN`).
 */
import { concatBytes } from '../../concat-bytes.js';
import { errorMessage } from '../../describe-error.js';
import type { McpGateway } from './gateway.js';
import { importServerTransport, rpcError } from './gateway-rpc.js';
import { type GatewayServerOptions, gatewayServer } from './gateway-server.js';
import { importModernSdk, isModernRequest, modernMissingResponse, serveModern } from './gateway-server-modern.js';
import type { GatewaySessions } from './gateway-sessions.js';
import { whenEnded } from './when-ended.js';

/** Options for {@link gatewayStateless}. */
export interface GatewayStatelessOptions extends Omit<GatewayServerOptions, 'found' | 'onFound'> {
  /**
   * Where sessions' found tools live, with `exposeFound`. Without one, found tools are not
   * kept: the list stays fixed (and the session declares no `listChanged`).
   */
  readonly sessions?: GatewaySessions;
  /** Largest request body read, in bytes. Default 256 KiB. */
  readonly maxBodyBytes?: number;
  /**
   * Who sent a request (a digest of its credential, say). A session is kept under its owner and
   * its id together, so an id that leaks (a log, a proxy) or is guessed cannot read, change or
   * end another caller's session: the MCP spec's advice to bind session ids to the user. Default:
   * every request has one owner (a gateway behind one token).
   */
  readonly owner?: (request: Request) => string | Promise<string>;
}

/** Reads one request; `parsedBody` when the caller has read (and bounded) the body already. */
export type GatewayFetch = (request: Request, parsedBody?: unknown) => Promise<Response>;

/** A gateway lent to one request, and what to do once its answer has gone out. */
export interface GatewayLease {
  readonly gateway: McpGateway;
  /** Called once the answer is complete (its stream ended or was cancelled). */
  release(): Promise<void>;
}

const DEFAULT_MAX_BODY_BYTES = 256 * 1024;
const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * A web-standard handler serving `gateway` over sessionless Streamable HTTP: POST carries
 * JSON-RPC and is answered with JSON (SSE when `exposeFound`, so the `list_changed` a search
 * causes rides its answer); GET (no standing stream) is 405; DELETE forgets a session's found
 * tools. `gateway` may be a function of the request's JSON-RPC body, called on every POST, that
 * lends a gateway for that request alone: on Workers a connection cannot outlive the request
 * that opened it, so each request there connects to the upstreams it needs and closes them.
 *
 * @example
 * const handle = await gatewayStateless(gateway, { exposeFound: true, sessions: memoryGatewaySessions() })
 * app.all('/mcp', (c) => handle(c.req.raw)) // behind your own auth
 */
export async function gatewayStateless(
  gateway: McpGateway | ((body: unknown) => Promise<GatewayLease>),
  options: GatewayStatelessOptions = {},
): Promise<GatewayFetch> {
  const { WebStandardStreamableHTTPServerTransport: Transport } = await importServerTransport();
  const { sessions, maxBodyBytes = DEFAULT_MAX_BODY_BYTES, owner, ...serverOptions } = options;
  /** Where a session's list is kept: its owner's and its id's. */
  const keyOf = async (request: Request, session: string): Promise<string> =>
    owner ? `${await owner(request)}/${session}` : session;
  const exposeFound = Boolean(options.exposeFound && sessions);
  const lend = typeof gateway === 'function' ? gateway : async () => ({ gateway, release: () => Promise.resolve() });

  const post = async (request: Request, given: unknown): Promise<Response> => {
    let body = given;
    if (body === undefined) {
      const text = await boundedText(request, maxBodyBytes);
      if (text === undefined) return rpcError(413, -32000, `the request body is over ${maxBodyBytes} bytes`);
      try {
        body = JSON.parse(text);
      } catch {
        return rpcError(400, -32700, 'Parse error: the body is not JSON');
      }
    }
    // 2026-07-28: no session and a fixed list, served by SDK v2 over the same gateway.
    const sdk = await importModernSdk();
    if (await isModernRequest(sdk, request, body)) {
      if (sdk instanceof Error) return modernMissingResponse(body, sdk.message);
      const lease = await lend(body);
      return serveModern(sdk, lease.gateway, request, body, {
        ...serverOptions,
        done: () => lease.release().catch(() => undefined),
      });
    }
    const header = request.headers.get('mcp-session-id');
    if (header !== null && !SESSION_ID.test(header)) return rpcError(400, -32000, 'a malformed Mcp-Session-Id');
    // A new session id only where there is something to remember, and only at initialize.
    const opening = exposeFound && header === null && isInitialize(body);
    const session = opening ? crypto.randomUUID() : (header ?? undefined);
    // Only a session that keeps found tools needs its owner's digest.
    const key = exposeFound && session !== undefined ? await keyOf(request, session) : undefined;
    const found = exposeFound && key && !opening ? await sessions?.found(key).catch(() => []) : [];
    const lease = await lend(body);
    let response: Response;
    let server: Awaited<ReturnType<typeof gatewayServer>> | undefined;
    try {
      server = await gatewayServer(lease.gateway, {
        ...serverOptions,
        exposeFound,
        ...(found ? { found } : {}),
        ...(exposeFound && key && sessions ? { onFound: (names) => sessions.keep(key, names) } : {}),
      });
      const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: !exposeFound });
      await server.connect(transport);
      response = await transport.handleRequest(request, { parsedBody: body });
    } catch (error) {
      await server?.close().catch(() => undefined);
      await lease.release().catch(() => undefined);
      throw error;
    }
    const done = async () => {
      await server?.close().catch(() => undefined);
      await lease.release().catch(() => undefined);
    };
    const headers = new Headers(response.headers);
    if (opening && session && response.ok) headers.set('mcp-session-id', session);
    // A JSON answer is whole once handleRequest resolves; an SSE one when its stream ends.
    if (response.body === null || !exposeFound) {
      await done();
      return new Response(response.body, { status: response.status, headers });
    }
    return new Response(whenEnded(response.body, done), { status: response.status, headers });
  };

  return async (request, parsedBody) => {
    try {
      if (request.method === 'POST') return await post(request, parsedBody);
      if (request.method === 'DELETE') {
        const session = request.headers.get('mcp-session-id');
        if (sessions && session !== null && SESSION_ID.test(session))
          await sessions.forget(await keyOf(request, session)).catch(() => undefined);
        return new Response(null, { status: 200 });
      }
      // No standing stream: every answer rides its own POST.
      return rpcError(405, -32000, 'this gateway answers POST (no standing stream)', { Allow: 'POST, DELETE' });
    } catch (error) {
      return rpcError(500, -32603, `gateway error: ${errorMessage(error)}`);
    }
  };
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some(
    (message) =>
      typeof message === 'object' && message !== null && (message as { method?: unknown }).method === 'initialize',
  );
}

/** The body as text, or undefined past `maxBytes` (the upload is cancelled there). */
async function boundedText(request: Request, maxBytes: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(concatBytes(chunks, size));
}
