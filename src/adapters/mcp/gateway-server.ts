/**
 * The gateway as a 2025-era MCP server: {@link gatewaySurface} served with the MCP SDK 1.x
 * `Server` over any transport the caller connects (stdio from the CLI when SDK v2 is absent;
 * Streamable HTTP through `gatewayHttp` and `gatewayStateless`). The SDK negotiates the
 * protocol version (2024-11-05 to 2025-11-25); 2026-07-28 is `gateway-server-modern.ts`'s.
 */
import type { CallToolResult, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../describe-error.js';
import type { McpGateway } from './gateway.js';
import { type GatewayServerOptions, gatewaySurface } from './gateway-surface.js';

export type { GatewayServerOptions } from './gateway-surface.js';
export { CALL_TOOL, SEARCH_TOOL } from './gateway-surface.js';

/**
 * The SDK `Server` that {@link gatewayServer} returns, as far as a caller uses it: loopctl's
 * declarations name no SDK type, so a project type-checks them without the SDK's (which need the
 * DOM's `HeadersInit`). It is the SDK's `Server`: connect it to any SDK server transport.
 *
 * @example
 * const server: GatewayMcpServer = await gatewayServer(gateway)
 * await server.connect(new StdioServerTransport())
 */
export interface GatewayMcpServer {
  /** Start serving over an SDK server transport (`StdioServerTransport`, a Streamable HTTP one). */
  connect(transport: object): Promise<void>;
  close(): Promise<void>;
  /** Called once the transport has closed. */
  onclose?: (() => void) | undefined;
}

/**
 * An SDK `Server` answering `tools/list` and `tools/call` for `gateway`; connect it to a
 * transport. One server is one session (one client): make one per session over a shared
 * gateway, as `gatewayHttp` does; each keeps its own found tools. The SDK
 * (`@modelcontextprotocol/sdk`, an optional peer) is imported here, on first use, with a clear
 * message when it is missing.
 *
 * @example
 * const server = await gatewayServer(gateway, { exposeFound: false })
 * await server.connect(new StdioServerTransport())
 */
export async function gatewayServer(
  gateway: McpGateway,
  options: GatewayServerOptions = {},
): Promise<GatewayMcpServer> {
  const [{ Server }, { ListToolsRequestSchema, CallToolRequestSchema }] = await importServerSdk();
  const surface = gatewaySurface(gateway, options);
  const server = new Server(surface.serverInfo, {
    capabilities: surface.capabilities,
    instructions: surface.instructions,
  });
  server.setRequestHandler(ListToolsRequestSchema, () => surface.listTools() as Promise<ListToolsResult>);
  server.setRequestHandler(
    CallToolRequestSchema,
    (request, extra) =>
      surface.callTool(request.params.name, request.params.arguments, extra.signal, () =>
        extra.sendNotification({ method: 'notifications/tools/list_changed' }),
      ) as Promise<CallToolResult>,
  );
  return server;
}

async function importServerSdk() {
  try {
    return await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
  } catch (error) {
    throw new Error(
      `the MCP gateway needs the optional peer dependency @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk (${errorMessage(error)})`,
      { cause: error },
    );
  }
}
