/**
 * Mount the tools of an MCP server (Streamable HTTP, or stdio on Node and Deno) into a
 * {@link ToolRegistry}, so the loop selects over them and dispatches calls to them like any
 * local tool.
 *
 * The MCP SDK (`@modelcontextprotocol/sdk`, an optional peer dependency) is imported lazily
 * on the first mount, so the core bundle never carries it. Streamable HTTP uses only
 * web-standard APIs and runs in browsers, Cloudflare Workers, Deno and Node; stdio imports
 * `node:child_process` lazily, only when a stdio server is mounted.
 *
 * The gateway (`McpGateway`) puts many servers behind one search and one call, and serves them
 * as an MCP server itself: `gatewayServer` over any SDK transport (stdio in `loopctl mcp`),
 * `gatewayHttp` over Streamable HTTP as a web-standard `fetch` handler. Both HTTP handlers, and
 * `loopctl mcp` over stdio, also serve MCP 2026-07-28 when `@modelcontextprotocol/server` (SDK
 * v2, an optional peer) is installed.
 *
 * @module loopctl/mcp
 */

export type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig, MountAllOptions } from './config.js';
export { mountAll, parseMcpServers } from './config.js';
export { renderContent } from './content.js';
export { McpUnreachableError } from './errors.js';
export type { GatewayHit, GatewayOptions, GatewaySearch } from './gateway.js';
export { DEFAULT_SEARCH_LIMIT, McpGateway } from './gateway.js';
export type { GatewayConfig, GatewayServer } from './gateway-config.js';
export { parseGatewayConfig, stripJsonComments } from './gateway-config.js';
export type { GatewayHttp, GatewayHttpOptions } from './gateway-http.js';
export { gatewayHttp } from './gateway-http.js';
export { boundResult, DEFAULT_MAX_RESULT_CHARS } from './gateway-result.js';
export type { GatewayMcpServer, GatewayServerOptions } from './gateway-server.js';
export { CALL_TOOL, gatewayServer, SEARCH_TOOL } from './gateway-server.js';
export type { GatewaySessions } from './gateway-sessions.js';
export { memoryGatewaySessions } from './gateway-sessions.js';
export type { GatewayFetch, GatewayLease, GatewayStatelessOptions } from './gateway-stateless.js';
export { gatewayStateless } from './gateway-stateless.js';
export type { McpFetch } from './http-transport.js';
export { mountMcp } from './mount.js';
export { assignNames } from './names.js';
export type {
  McpCommonOptions,
  McpHttpMountOptions,
  McpMount,
  McpMountOptions,
  McpStdioMountOptions,
  McpToolResult,
} from './options.js';
