/**
 * The gateway over MCP Streamable HTTP, as one web-standard `fetch` handler: Node (through
 * `@hono/node-server`, which the SDK depends on), Deno and Workers can all serve it. Each client
 * session gets its own SDK `Server` and transport over the one shared gateway, so what a session
 * was shown (its found tools) stays its own, and every session searches the same warm index.
 */
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { errorMessage } from '../../describe-error.js';
import type { McpGateway } from './gateway.js';
import { importServerTransport, rpcError } from './gateway-rpc.js';
import { type GatewayMcpServer, type GatewayServerOptions, gatewayServer } from './gateway-server.js';
import {
  importModernSdk,
  isModernRequest,
  modernGatewayServer,
  modernMissingResponse,
} from './gateway-server-modern.js';

/** Options for {@link gatewayHttp}. */
export interface GatewayHttpOptions extends GatewayServerOptions {
  /**
   * `Host` header values accepted (`127.0.0.1:8788`, `localhost:8788`), against DNS rebinding:
   * a web page cannot then reach a gateway on the loopback through a name it controls. Any host
   * when absent.
   */
  readonly allowedHosts?: readonly string[];
  /**
   * A bearer token every request must carry (`Authorization: Bearer TOKEN`). A gateway that
   * listens beyond the loopback should have one: its tools read files and run commands.
   */
  readonly token?: string;
  /** Sessions held at once; the least recently used one is closed past it. Default 64. */
  readonly maxSessions?: number;
  /**
   * Largest body a 2026-07-28 request may have (and read to tell the eras apart), in bytes.
   * Default 4 MiB (the SDK's).
   */
  readonly maxBodyBytes?: number;
}

/** The handler and a way to end every session. */
export interface GatewayHttp {
  /** Answers one HTTP request on the MCP endpoint (POST, GET for the stream, DELETE). */
  fetch(request: Request): Promise<Response>;
  /** Close every session (the gateway itself stays open: close it after). */
  close(): Promise<void>;
  /** Sessions open now. */
  readonly sessions: number;
}

interface Session {
  readonly server: GatewayMcpServer;
  readonly transport: WebStandardStreamableHTTPServerTransport;
}

const DEFAULT_MAX_SESSIONS = 64;
const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * Serve `gateway` over MCP Streamable HTTP. A 2025-era client is served statefully (the 1.x
 * SDK's transport gives each client a session id at `initialize`); a request naming an unknown
 * session gets 404, which tells the client to initialize again. A 2026-07-28 request (no
 * session: each carries its version and capabilities) is answered by SDK v2
 * (`@modelcontextprotocol/server`, an optional peer) with the fixed list: `exposeFound` is a
 * 2025-era feature. Either way a wrong host gets 403, a missing or wrong token 401.
 *
 * @example
 * const http = await gatewayHttp(gateway, { allowedHosts: ['127.0.0.1:8788'] })
 * serve({ fetch: http.fetch, hostname: '127.0.0.1', port: 8788 }) // @hono/node-server
 * // a client: new StreamableHTTPClientTransport(new URL('http://127.0.0.1:8788/mcp'))
 */
export async function gatewayHttp(gateway: McpGateway, options: GatewayHttpOptions = {}): Promise<GatewayHttp> {
  const { WebStandardStreamableHTTPServerTransport: Transport } = await importServerTransport();
  const { allowedHosts, token, maxSessions = DEFAULT_MAX_SESSIONS, maxBodyBytes = DEFAULT_MAX_BODY_BYTES } = options;
  const sdk = await importModernSdk();
  // One strict v2 handler for every 2026-07-28 request: each gets its own instance, all over the
  // one gateway, and every one of them the fixed list.
  const modern =
    sdk instanceof Error
      ? undefined
      : sdk.createMcpHandler(
          () => modernGatewayServer(sdk, gateway, options.serverInfo ? { serverInfo: options.serverInfo } : {}),
          { legacy: 'reject', maxRequestBodySize: maxBodyBytes, maxSubscriptions: maxSessions },
        );
  // Insertion order is recency: a session is moved to the end on every request.
  const sessions = new Map<string, Session>();
  const end = async (id: string): Promise<void> => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    await session.server.close().catch(() => undefined);
  };

  const open = async (request: Request): Promise<Response> => {
    const transport: WebStandardStreamableHTTPServerTransport = new Transport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { server, transport });
        if (sessions.size > maxSessions) void end(sessions.keys().next().value as string);
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    const server = await gatewayServer(gateway, options);
    await server.connect(transport);
    const response = await transport.handleRequest(request);
    // Anything but an initialize leaves no session behind: its server goes at once.
    if (transport.sessionId === undefined) await server.close().catch(() => undefined);
    return response;
  };

  const handle = async (request: Request): Promise<Response> => {
    const refused = refusal(request, allowedHosts, token);
    if (refused) return refused;
    const id = request.headers.get('mcp-session-id');
    // Without SDK v2, a modern client says so in its MCP-Protocol-Version header.
    if (id === null && (await isModernRequest(sdk, request, undefined, maxBodyBytes)))
      return modern ? modern.fetch(request) : modernMissingResponse(undefined, (sdk as Error).message);
    if (id === null) {
      if (request.method === 'POST') return open(request);
      return rpcError(405, -32000, 'Method not allowed without a session: POST initialize first', { Allow: 'POST' });
    }
    const session = sessions.get(id);
    if (!session) return rpcError(404, -32001, 'Session not found: initialize a new session');
    sessions.delete(id);
    sessions.set(id, session);
    return session.transport.handleRequest(request);
  };

  return {
    fetch: (request) =>
      handle(request).catch((error: unknown) => rpcError(500, -32603, `gateway error: ${errorMessage(error)}`)),
    close: async () => {
      await modern?.close().catch(() => undefined);
      await Promise.all([...sessions.keys()].map(end));
    },
    get sessions() {
      return sessions.size;
    },
  };
}

/** 403 for a host not allowed, 401 for a missing or wrong token; undefined when it may pass. */
function refusal(
  request: Request,
  hosts: readonly string[] | undefined,
  token: string | undefined,
): Response | undefined {
  const host = request.headers.get('host') ?? new URL(request.url).host;
  if (hosts && !hosts.includes(host)) return rpcError(403, -32000, `Host ${JSON.stringify(host)} is not allowed`);
  if (token === undefined) return undefined;
  const given = /^Bearer\s+(.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1]?.trim();
  if (given === undefined || !sameText(given, token))
    return rpcError(401, -32000, 'Unauthorized: send Authorization: Bearer TOKEN', {
      'WWW-Authenticate': 'Bearer',
    });
  return undefined;
}

/** Equal texts, compared in time that does not depend on where they first differ. */
function sameText(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let differ = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) differ |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return differ === 0;
}
