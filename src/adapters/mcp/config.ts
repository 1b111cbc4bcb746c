/**
 * MCP servers from configuration: parse a JSON list (e.g. the `LOOPCTL_MCP_SERVERS`
 * environment variable) and mount every server it names.
 */
import type { ToolRegistry } from '../../registry/registry.js';
import { mountMcp } from './mount.js';
import type { McpMount, McpMountOptions } from './options.js';

/** One server as configuration names it. */
export interface McpServerConfig {
  /** The Streamable HTTP endpoint (http or https). */
  readonly url: string;
  /** Tool name prefix (`github` → `github__create_issue`). */
  readonly prefix?: string;
  /** Sent with every request, e.g. `{ "Authorization": "Bearer …" }`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The server's label in error messages. */
  readonly name?: string;
  /** Longest wait for any one answer, in ms. */
  readonly timeoutMs?: number;
}

/** Options for {@link mountAll}. */
export interface MountAllOptions extends Pick<McpMountOptions, 'fetch' | 'clientInfo' | 'onError'> {
  /**
   * Told when a server cannot be mounted; the others are mounted anyway. Without it, one
   * failure unmounts the servers already mounted and rejects.
   */
  onMountError?: (error: Error, server: McpServerConfig) => void;
}

const KEYS = new Set(['url', 'prefix', 'headers', 'name', 'timeoutMs']);
const PREFIX = /^[a-zA-Z0-9_-]{1,48}$/;

/**
 * Parse a JSON array of `{ url, prefix?, headers?, name?, timeoutMs? }`. An unset or blank
 * value is no servers. Anything malformed throws an error naming `source` and the entry, so
 * a typo in deployment configuration fails loudly at start instead of mounting nothing.
 *
 * @example
 * const servers = parseMcpServers(env.LOOPCTL_MCP_SERVERS)
 * // LOOPCTL_MCP_SERVERS='[{"url":"https://mcp.example.com/github","prefix":"github","headers":{"Authorization":"Bearer …"}}]'
 */
export function parseMcpServers(value: string | undefined, source = 'LOOPCTL_MCP_SERVERS'): McpServerConfig[] {
  if (value === undefined || value.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new Error(`${source} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${source} must be a JSON array of { "url", "prefix"?, "headers"? } objects`);
  const servers = parsed.map((entry, index) => parseEntry(entry, `${source}[${index}]`));
  assertDistinctPrefixes(servers, source);
  return servers;
}

function parseEntry(entry: unknown, where: string): McpServerConfig {
  if (!isRecord(entry)) throw new Error(`${where} must be an object with a "url"`);
  const unknown = Object.keys(entry).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) throw new Error(`${where} has unknown ${unknown.length === 1 ? 'key' : 'keys'} ${unknown.map((k) => `"${k}"`).join(', ')} (allowed: ${[...KEYS].join(', ')})`);
  return {
    url: parseUrl(entry.url, where),
    ...optional('prefix', parsePrefix(entry.prefix, where)),
    ...optional('headers', parseHeaders(entry.headers, where)),
    ...optional('name', parseName(entry.name, where)),
    ...optional('timeoutMs', parseTimeout(entry.timeoutMs, where)),
  };
}

function parseUrl(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`${where}.url must be a non-empty string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${where}.url is not an absolute URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${where}.url must be http or https, got ${url.protocol}`);
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
    if (typeof header !== 'string') throw new Error(`${where}.headers["${name}"] must be a string, got ${typeof header}`);
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
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new Error(`${where}.timeoutMs must be a positive number of milliseconds`);
  return value;
}

function assertDistinctPrefixes(servers: readonly McpServerConfig[], source: string): void {
  const seen = new Set<string>();
  for (const { prefix } of servers) {
    if (prefix === undefined) continue;
    if (seen.has(prefix)) throw new Error(`${source}: prefix "${prefix}" is used by two servers; their tools would collide`);
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
export async function mountAll(registry: ToolRegistry, servers: readonly McpServerConfig[], options: MountAllOptions = {}): Promise<McpMount[]> {
  const { onMountError, ...shared } = options;
  const settled = await Promise.allSettled(servers.map((server) => mountMcp(registry, { ...shared, ...server })));
  const mounts: McpMount[] = [];
  const failures: { error: Error; server: McpServerConfig }[] = [];
  settled.forEach((outcome, index) => {
    const server = servers[index] as McpServerConfig;
    if (outcome.status === 'fulfilled') mounts.push(outcome.value);
    else failures.push({ error: outcome.reason instanceof Error ? outcome.reason : new Error(String(outcome.reason)), server });
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

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
