/**
 * MCP servers from configuration: parse a JSON list (e.g. the `LOOPCTL_MCP_SERVERS`
 * environment variable) and mount every server it names.
 */

import { errorMessage } from '../../describe-error.js';
import { mergeOptions } from '../../options.js';
import type { ToolRegistry } from '../../registry/registry.js';
import { mountMcp } from './mount.js';
import type { McpCommonOptions, McpHttpMountOptions, McpMount } from './options.js';

/** What every configured server may say. */
interface McpCommonConfig {
  /** Tool name prefix (`github` → `github__create_issue`). */
  readonly prefix?: string;
  /** The server's label in error messages. */
  readonly name?: string;
  /** Longest wait for any one answer, in ms. */
  readonly timeoutMs?: number;
}

/** A Streamable HTTP server as configuration names it. */
export interface McpHttpServerConfig extends McpCommonConfig {
  /** The Streamable HTTP endpoint (http or https). */
  readonly url: string;
  /** Sent with every request, e.g. `{ "Authorization": "Bearer …" }`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A stdio server (a command to start) as configuration names it. */
export interface McpStdioServerConfig extends McpCommonConfig {
  /** The program to run. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the few variables a server inherits (`PATH`, `HOME`, …). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** One server as configuration names it: a `url` (Streamable HTTP) or a `command` (stdio). */
export type McpServerConfig = McpHttpServerConfig | McpStdioServerConfig;

/** Options for {@link mountAll}. */
export interface MountAllOptions
  extends Pick<McpCommonOptions, 'clientInfo' | 'onError'>,
    Pick<McpHttpMountOptions, 'fetch'> {
  /**
   * Told when a server cannot be mounted; the others are mounted anyway. Without it, one
   * failure unmounts the servers already mounted and rejects.
   */
  onMountError?: (error: Error, server: McpServerConfig) => void;
  /** Told what a stdio server writes to stderr. Default: not shown (the tail goes into its errors). */
  onStderr?: (text: string, server: McpStdioServerConfig) => void;
}

const HTTP_KEYS = new Set(['url', 'prefix', 'headers', 'name', 'timeoutMs']);
const STDIO_KEYS = new Set(['command', 'args', 'env', 'cwd', 'prefix', 'name', 'timeoutMs']);
const PREFIX = /^[a-zA-Z0-9_-]{1,48}$/;

/**
 * Parse a JSON array of servers: `{ url, prefix?, headers?, name?, timeoutMs? }` for
 * Streamable HTTP, `{ command, args?, env?, cwd?, prefix?, name?, timeoutMs? }` for stdio.
 * An unset or blank value is no servers. Anything malformed throws an error naming `source`
 * and the entry, so a typo in deployment configuration fails loudly at start instead of
 * mounting nothing.
 *
 * @example
 * const servers = parseMcpServers(env.LOOPCTL_MCP_SERVERS)
 * // LOOPCTL_MCP_SERVERS='[{"url":"https://mcp.example.com/github","prefix":"github","headers":{"Authorization":"Bearer …"}},
 * //                       {"command":"npx","args":["-y","@modelcontextprotocol/server-memory"],"prefix":"memory"}]'
 */
export function parseMcpServers(value: string | undefined, source = 'LOOPCTL_MCP_SERVERS'): McpServerConfig[] {
  if (value === undefined || value.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new Error(`${source} is not valid JSON (${errorMessage(error)})`);
  }
  if (!Array.isArray(parsed))
    throw new Error(
      `${source} must be a JSON array of { "url", "prefix"?, "headers"? } or { "command", "args"?, "env"? } objects`,
    );
  const servers = parsed.map((entry, index) => parseMcpServer(entry, `${source}[${index}]`));
  assertDistinctPrefixes(servers, source);
  return servers;
}

/**
 * One server entry checked as {@link parseMcpServers} checks each of its entries; `where` names
 * it in errors.
 *
 * @example
 * parseMcpServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], prefix: 'memory' }, 'memory')
 *
 * @internal For other readers of server lists (the gateway's `mcpServers`); not re-exported.
 */
export function parseMcpServer(entry: unknown, where: string): McpServerConfig {
  if (!isRecord(entry)) throw new Error(`${where} must be an object with a "url" or a "command"`);
  const stdio = 'command' in entry;
  if (stdio && 'url' in entry)
    throw new Error(`${where} has both "url" and "command": give a url (Streamable HTTP) or a command (stdio)`);
  const keys = stdio ? STDIO_KEYS : HTTP_KEYS;
  const unknown = Object.keys(entry).filter((key) => !keys.has(key));
  if (unknown.length > 0)
    throw new Error(
      `${where} has unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.map((k) => `"${k}"`).join(', ')} (allowed: ${[...keys].join(', ')})`,
    );
  // A config holds only the keys its entry gave (mergeOptions drops the undefined ones).
  const common = {
    prefix: parsePrefix(entry.prefix, where),
    name: parseName(entry.name, where),
    timeoutMs: parseTimeout(entry.timeoutMs, where),
  };
  if (stdio) {
    const command = parseCommand(entry.command, where);
    return mergeOptions(
      { command },
      {
        args: parseArgs(entry.args, where),
        env: parseEnv(entry.env, where),
        cwd: parseCwd(entry.cwd, where),
        ...common,
      },
    );
  }
  return mergeOptions({ url: parseUrl(entry.url, where) }, { headers: parseHeaders(entry.headers, where), ...common });
}

function parseCommand(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${where}.command must be a non-empty string`);
  return value;
}

function parseArgs(value: unknown, where: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new Error(`${where}.args must be an array of strings`);
  value.forEach((arg, index) => {
    if (typeof arg !== 'string') throw new Error(`${where}.args[${index}] must be a string, got ${typeof arg}`);
  });
  return value as string[];
}

function parseEnv(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new Error(`${where}.env must be an object of variable names to strings`);
  for (const [name, variable] of Object.entries(value)) {
    if (name === '' || name.includes('=') || name.includes('\0'))
      throw new Error(`${where}.env has an invalid variable name ${JSON.stringify(name)}`);
    if (typeof variable !== 'string')
      throw new Error(`${where}.env["${name}"] must be a string, got ${typeof variable}`);
  }
  return { ...(value as Record<string, string>) };
}

function parseCwd(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new Error(`${where}.cwd must be a non-empty string`);
  return value;
}

function parseUrl(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '')
    throw new Error(`${where}.url must be a non-empty string (or give a "command" for a stdio server)`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${where}.url is not an absolute URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${where}.url must be http or https, got ${url.protocol}`);
  return value;
}

function parsePrefix(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !PREFIX.test(value)) {
    throw new Error(`${where}.prefix must be 1–48 characters of a-z, A-Z, 0-9, _ or -, got ${JSON.stringify(value)}`);
  }
  return value;
}

function parseHeaders(value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw new Error(`${where}.headers must be an object of header names to strings`);
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries(value)) {
    if (typeof header !== 'string')
      throw new Error(`${where}.headers["${name}"] must be a string, got ${typeof header}`);
    // Checked here so a bad name fails at start, not on the first request.
    try {
      new Headers([[name, header]]);
    } catch {
      throw new Error(`${where}.headers["${name}"] is not a valid HTTP header`);
    }
    headers[name] = header;
  }
  return headers;
}

function parseName(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${where}.name must be a non-empty string`);
  return value;
}

function parseTimeout(value: unknown, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new Error(`${where}.timeoutMs must be a positive number of milliseconds`);
  return value;
}

function assertDistinctPrefixes(servers: readonly McpServerConfig[], source: string): void {
  const seen = new Set<string>();
  for (const { prefix } of servers) {
    if (prefix === undefined) continue;
    if (seen.has(prefix))
      throw new Error(`${source}: prefix "${prefix}" is used by two servers; their tools would collide`);
    seen.add(prefix);
  }
}

/**
 * Mount every configured server into `registry`, concurrently. Returns the mounts in
 * configuration order (failed ones left out when `onMountError` is given).
 *
 * @example
 * const mounts = await mountAll(registry, parseMcpServers(env.LOOPCTL_MCP_SERVERS), {
 *   onMountError: (error) => console.warn(error.message),
 * })
 * // at shutdown
 * await Promise.all(mounts.map((mount) => mount.unmount()))
 */
export async function mountAll(
  registry: ToolRegistry,
  servers: readonly McpServerConfig[],
  options: MountAllOptions = {},
): Promise<McpMount[]> {
  const { onMountError, onStderr, fetch, ...shared } = options;
  const mountOne = (server: McpServerConfig): Promise<McpMount> =>
    'command' in server
      ? mountMcp(
          registry,
          mergeOptions(shared, server, { onStderr: onStderr ? (text: string) => onStderr(text, server) : undefined }),
        )
      : mountMcp(registry, mergeOptions(shared, { fetch }, server));
  const settled = await Promise.allSettled(servers.map(mountOne));
  const mounts: McpMount[] = [];
  const failures: { error: Error; server: McpServerConfig }[] = [];
  settled.forEach((outcome, index) => {
    const server = servers[index] as McpServerConfig;
    if (outcome.status === 'fulfilled') mounts.push(outcome.value);
    else
      failures.push({
        error: outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason)),
        server,
      });
  });
  if (failures.length === 0) return mounts;
  if (onMountError) {
    for (const { error, server } of failures) onMountError(error, server);
    return mounts;
  }
  await Promise.all(mounts.map((mount) => mount.unmount()));
  const first = failures[0] as { error: Error };
  const more = failures.length > 1 ? ` (and ${failures.length - 1} more)` : '';
  throw new Error(`mounting MCP servers failed: ${first.error.message}${more}`, { cause: first.error });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
