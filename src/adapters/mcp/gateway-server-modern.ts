/**
 * The gateway as an MCP server of both eras, on the MCP SDK v2 (`@modelcontextprotocol/server`,
 * an optional peer): the same {@link gatewaySurface} as the 1.x server, registered on the v2
 * `Server`. Its serving entries pick the era: `createMcpHandler` answers 2026-07-28 requests
 * over HTTP (one instance per request), `serveStdio` serves whichever era a stdio client opens
 * with. Loaded on first use; when the package is missing, the gateway serves the 2025 era alone
 * and answers a 2026-07-28 request with {@link modernMissingResponse}.
 */
import type { Server } from '@modelcontextprotocol/server';
import { errorMessage } from '../../describe-error.js';
import type { McpGateway } from './gateway.js';
import { type GatewayServerOptions, gatewaySurface } from './gateway-surface.js';
import { whenEnded } from './when-ended.js';

/**
 * The MCP revision SDK v2 serves beside the 2025 era.
 *
 * @example
 * client.getNegotiatedProtocolVersion() === MODERN_PROTOCOL_VERSION // over a v2 client with versionNegotiation
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** The 2025-era revisions the 1.x SDK negotiates, newest first. */
const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** The v2 server package, as far as the gateway uses it. */
export type ModernSdk = typeof import('@modelcontextprotocol/server');

/** Why the v2 package could not load, said once per process: the import is tried once. */
let loading: Promise<ModernSdk | Error> | undefined;

/**
 * `@modelcontextprotocol/server`, or the error saying it is missing (never throws): the gateway
 * then serves the 2025 era alone.
 *
 * @example
 * const sdk = await importModernSdk()
 * if (sdk instanceof Error) console.warn(sdk.message)
 */
export function importModernSdk(): Promise<ModernSdk | Error> {
  loading ??= import('@modelcontextprotocol/server').then(
    (sdk) => sdk,
    (error: unknown) =>
      new Error(
        `MCP ${MODERN_PROTOCOL_VERSION} needs the optional peer dependency @modelcontextprotocol/server: npm install @modelcontextprotocol/server (this gateway serves MCP ${LEGACY_VERSIONS.at(-1)} to ${LEGACY_VERSIONS[0]} without it; ${errorMessage(error)})`,
        { cause: error },
      ),
  );
  return loading;
}

/**
 * A v2 SDK `Server` answering `tools/list` and `tools/call` for `gateway`, the surface the 1.x
 * `gatewayServer` serves. `exposeFound` only means something on a 2025-era connection: a
 * 2026-07-28 list must not vary per connection, so a modern instance gets the fixed list.
 *
 * @example
 * const sdk = await importModernSdk()
 * if (!(sdk instanceof Error)) sdk.createMcpHandler(({ era }) => modernGatewayServer(sdk, gateway, { exposeFound: era === 'legacy' }))
 */
export function modernGatewayServer(sdk: ModernSdk, gateway: McpGateway, options: GatewayServerOptions = {}): Server {
  const surface = gatewaySurface(gateway, options);
  const server = new sdk.Server(surface.serverInfo, {
    capabilities: surface.capabilities,
    instructions: surface.instructions,
  });
  server.setRequestHandler('tools/list', () => surface.listTools() as never);
  server.setRequestHandler(
    'tools/call',
    (request, ctx) =>
      surface.callTool(request.params.name, request.params.arguments, ctx.mcpReq.signal, () =>
        ctx.mcpReq.notify({ method: 'notifications/tools/list_changed' }),
      ) as never,
  );
  return server;
}

/**
 * Whether a JSON-RPC body claims the 2026-07-28 era (its per-request `_meta` carries a protocol
 * version, or the `MCP-Protocol-Version` header names a 2026 revision): how the gateway tells a
 * modern request apart when the v2 package, which classifies them itself, is not installed.
 *
 * @example
 * claimsModern({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } }, new Headers()) // true
 */
export function claimsModern(body: unknown, headers: Headers): boolean {
  const header = headers.get('mcp-protocol-version');
  if (header !== null && header >= '2026') return true;
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const meta = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params?._meta;
    return typeof meta === 'object' && meta !== null && 'io.modelcontextprotocol/protocolVersion' in meta;
  });
}

/**
 * The JSON-RPC error for a 2026-07-28 request when the v2 package is missing: `-32022`
 * (UnsupportedProtocolVersion) listing the 2025 revisions served, so a negotiating client falls
 * back to `initialize`, with a message naming the package to install.
 *
 * @example
 * await transport.send(modernMissingError(message, sdk.message)) // stdio
 */
export function modernMissingError(body: unknown, why: string) {
  const first = (Array.isArray(body) ? body[0] : body) as
    | { id?: unknown; params?: { _meta?: Record<string, unknown> } }
    | undefined;
  const id = typeof first?.id === 'string' || typeof first?.id === 'number' ? first.id : null;
  const requested = first?.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  return {
    jsonrpc: '2.0' as const,
    id,
    error: {
      code: -32022,
      message: why,
      data: { supported: LEGACY_VERSIONS, ...(typeof requested === 'string' ? { requested } : {}) },
    },
  };
}

/**
 * {@link modernMissingError} as an HTTP answer (400, as the SDK answers -32022).
 *
 * @example
 * return modernMissingResponse(body, sdk.message)
 */
export function modernMissingResponse(body: unknown, why: string): Response {
  return new Response(JSON.stringify(modernMissingError(body, why)), {
    status: 400,
    headers: { 'content-type': 'application/json' },
  });
}

/**
 * Whether `request` is of the 2026-07-28 era: the v2 SDK's own classification (so the gateway
 * routes exactly as its handler would), or, without the package, {@link claimsModern}.
 * `body` is the request's parsed JSON (its stream already read); without it the SDK reads a
 * copy of the body, at most `maxBodyBytes` (the SDK's 4 MiB by default).
 *
 * @example
 * if (await isModernRequest(await importModernSdk(), request, body)) …
 */
export async function isModernRequest(
  sdk: ModernSdk | Error,
  request: Request,
  body: unknown,
  maxBodyBytes?: number,
): Promise<boolean> {
  if (request.method !== 'POST') return false;
  if (sdk instanceof Error) return claimsModern(body, request.headers);
  return !(await sdk.isLegacyRequest(request, body, maxBodyBytes ? { maxRequestBodySize: maxBodyBytes } : {}));
}

/**
 * One 2026-07-28 request served over `gateway` by a strict v2 handler (`legacy: 'reject'`)
 * made for it, so nothing is held between requests. The answer is plain JSON unless the SDK
 * streams it; `done` runs once it has gone out (a stream's end), and the handler closes then.
 *
 * @example
 * return serveModern(sdk, gateway, request, body, { done: () => lease.release() })
 */
export async function serveModern(
  sdk: ModernSdk,
  gateway: McpGateway,
  request: Request,
  body: unknown,
  options: Pick<GatewayServerOptions, 'serverInfo'> & { readonly done?: () => Promise<unknown> } = {},
): Promise<Response> {
  const handler = sdk.createMcpHandler(
    () => modernGatewayServer(sdk, gateway, options.serverInfo ? { serverInfo: options.serverInfo } : {}),
    // One listen stream at most: the list it would watch never changes.
    { legacy: 'reject', maxSubscriptions: 1 },
  );
  const finish = async () => {
    await handler.close().catch(() => undefined);
    await options.done?.();
  };
  let response: Response;
  try {
    response = await handler.fetch(request, { parsedBody: body });
  } catch (error) {
    await finish();
    throw error;
  }
  if (response.body === null || !response.headers.get('content-type')?.includes('text/event-stream')) {
    // A JSON answer is whole once fetch resolves.
    const text = response.body === null ? null : await response.text();
    await finish();
    return new Response(text, { status: response.status, headers: response.headers });
  }
  return new Response(whenEnded(response.body, finish), { status: response.status, headers: response.headers });
}
