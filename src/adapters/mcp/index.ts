/**
 * Mount the tools of a remote MCP server (Streamable HTTP) into a {@link ToolRegistry}, so
 * the loop selects over them and dispatches calls to them like any local tool.
 *
 * The MCP SDK (`@modelcontextprotocol/sdk`, an optional peer dependency) is imported lazily
 * on the first mount, so the core bundle never carries it. Only web-standard APIs are used:
 * the adapter runs in browsers, Cloudflare Workers, Deno and Node.
 *
 * @module loopctl/mcp
 */
export { mountAll, parseMcpServers } from './config.js';
export type { McpServerConfig, MountAllOptions } from './config.js';
export { renderContent } from './content.js';
export { McpUnreachableError } from './errors.js';
export type { McpFetch } from './http-transport.js';
export { mountMcp } from './mount.js';
export { assignNames } from './names.js';
export type { McpMount, McpMountOptions } from './options.js';
