/** The options of {@link mountMcp}, the mount's public shape, and the checks that run before connecting. */
import { httpTransport, type McpFetch, parseHttpUrl } from './http-transport.js';
import type { ServerTransport } from './transport.js';

/** Options for {@link mountMcp}. */
export interface McpMountOptions {
  /** The server's Streamable HTTP endpoint, e.g. `https://api.example.com/mcp`. */
  url: string | URL;
  /** Sent with every request (e.g. `{ Authorization: 'Bearer …' }`). */
  headers?: Readonly<Record<string, string>>;
  /**
   * Prepended to every tool name, joined by `__` (`github` → `github__create_issue`), so two
   * servers' tools cannot collide. A prefix ending in `_` or `-` is used as is.
   */
  prefix?: string;
  /** The server's label in error messages. Default: the prefix, else the URL's host. */
  name?: string;
  /** Longest wait for any one answer (connect, list, call), in ms. Default 60,000. */
  timeoutMs?: number;
  /** How this client introduces itself. Default `{ name: 'loopctl', version: '0.1.0' }`. */
  clientInfo?: { name: string; version: string };
  /** Replaces the global `fetch` for every request the transport makes. */
  fetch?: McpFetch;
  /**
   * Told about failures nobody awaits: a re-list after `notifications/tools/list_changed`
   * that fails, or new tools skipped because their names are taken. Default `console.warn`.
   */
  onError?: (error: Error) => void;
}

/** A mounted server: its tools are in the registry until {@link McpMount.unmount}. */
export interface McpMount {
  /** The server's label in error messages. */
  readonly name: string;
  /** The registered names of this server's tools, in the server's order. */
  readonly tools: readonly string[];
  /**
   * Re-list the server's tools and apply the difference (replace changed, add new, remove
   * gone) to the registry in one batch: at most one generation change. A server's
   * `notifications/tools/list_changed` does this by itself.
   */
  refresh(): Promise<void>;
  /** Remove this server's tools (one generation change) and close the connection. Idempotent. */
  unmount(): Promise<void>;
  /** The same as {@link McpMount.unmount}, for code that closes resources generically. */
  close(): Promise<void>;
}

/** What the mount needs, checked, with the transport chosen. */
export interface MountSettings {
  readonly name: string;
  readonly prefix: string | undefined;
  readonly timeoutMs: number;
  readonly clientInfo: { name: string; version: string };
  readonly onError: (error: Error) => void;
  readonly transport: ServerTransport;
}

/** The default longest wait for any one answer (connect, list, call), in ms. */
export const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CLIENT_INFO = { name: 'loopctl', version: '0.1.0' };
const PREFIX_PATTERN = /^[a-zA-Z0-9_-]{1,48}$/;

/**
 * Check {@link mountMcp}'s options before anything connects; throws a `TypeError` or
 * `RangeError` that names the bad option.
 *
 * @example
 * checkOptions({ url: 'https://mcp.example.com/github', prefix: 'github' }).name // 'github'
 */
export function checkOptions(options: McpMountOptions): MountSettings {
  if (!options || typeof options !== 'object') throw new TypeError('mountMcp: options with a url are required');
  const url = parseHttpUrl(options.url);
  const { prefix, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix))) {
    throw new TypeError(`mountMcp: prefix must match ${PREFIX_PATTERN} so tool names stay valid, got ${JSON.stringify(prefix)}`);
  }
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new RangeError(`mountMcp: timeoutMs must be a positive number, got ${timeoutMs}`);
  return {
    name: options.name ?? prefix ?? url.host,
    prefix,
    timeoutMs,
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    onError: options.onError ?? ((error) => console.warn(`loopctl/mcp: ${error.message}`)),
    transport: httpTransport({ url, headers: { ...options.headers }, fetch: options.fetch }),
  };
}
