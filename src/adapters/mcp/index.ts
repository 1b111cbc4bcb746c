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
 * @module loopctl/mcp
 */

export type { McpHttpServerConfig, McpServerConfig, McpStdioServerConfig, MountAllOptions } from './config.js';
export { mountAll, parseMcpServers } from './config.js';
export { renderContent } from './content.js';
export { McpUnreachableError } from './errors.js';
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
