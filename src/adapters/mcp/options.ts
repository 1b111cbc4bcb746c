/** The options of {@link mountMcp}, the mount's public shape, and the checks that run before connecting. */

import { mergeOptions } from '../../options.js';
import { httpTransport, type McpFetch, parseHttpUrl } from './http-transport.js';
import { stdioTransport, stdioUnsupported } from './stdio-transport.js';
import type { ServerTransport } from './transport.js';

/** What every mount accepts, whatever the transport. */
export interface McpCommonOptions {
  /**
   * Prepended to every tool name, joined by `__` (`github` → `github__create_issue`), so two
   * servers' tools cannot collide. A prefix ending in `_` or `-` is used as is.
   */
  prefix?: string;
  /** The server's label in error messages. Default: the prefix, else the URL's host or the command. */
  name?: string;
  /** Longest wait for any one answer (connect, each list page, each call), in ms. Default 60,000. */
  timeoutMs?: number;
  /** How this client introduces itself. Default `{ name: 'loopctl', version: '0.1.0' }`. */
  clientInfo?: { name: string; version: string };
  /**
   * Told about failures nobody awaits: a re-list after `notifications/tools/list_changed`
   * that fails, new tools skipped because their names are taken, a stdio server's stray
   * stdout line. Default `console.warn`.
   */
  onError?: (error: Error) => void;
}

/** A server over Streamable HTTP (every runtime). */
export interface McpHttpMountOptions extends McpCommonOptions {
  /** The server's Streamable HTTP endpoint, e.g. `https://api.example.com/mcp`. */
  url: string | URL;
  /** Sent with every request (e.g. `{ Authorization: 'Bearer …' }`). */
  headers?: Readonly<Record<string, string>>;
  /** Replaces the global `fetch` for every request the transport makes. */
  fetch?: McpFetch;
}

/** A server started as a child process speaking stdio (Node and Deno). */
export interface McpStdioMountOptions extends McpCommonOptions {
  /** The program to run, found on `PATH` or given as a path (no shell). */
  command: string;
  /** Its arguments. */
  args?: readonly string[];
  /**
   * Variables for the server. It inherits only `HOME`, `LOGNAME`, `PATH`, `SHELL`, `TERM`,
   * `USER`, `TMPDIR` and `LANG` (the Windows equivalents there); pass anything else it needs
   * (API keys, its own settings) here.
   */
  env?: Readonly<Record<string, string>>;
  /** Its working directory. Default: this process's. */
  cwd?: string;
  /**
   * Told each chunk the server writes to stderr (its log). Default: not shown; the last
   * lines are kept and quoted in errors about the server.
   */
  onStderr?: (text: string) => void;
}

/** Options for {@link mountMcp}: a `url` (Streamable HTTP) or a `command` (stdio). */
export type McpMountOptions = McpHttpMountOptions | McpStdioMountOptions;

/**
 * A tool result as the server sent it: MCP's `CallToolResult`, typed structurally so the
 * published types need no SDK.
 *
 * @example
 * const result: McpToolResult = await mount.call('fs__read_text_file', { path: 'notes.txt' })
 * result.content // [{ type: 'text', text: 'Ship it.' }]
 */
export interface McpToolResult {
  /** The content parts (`text`, `image`, `audio`, `resource`, `resource_link`), as sent. */
  readonly content: readonly { readonly type: string; readonly [key: string]: unknown }[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
  readonly [key: string]: unknown;
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
  /**
   * Call one of this server's tools by its registry name and get the server's result as sent
   * (content parts, `structuredContent`, `isError`), for code that passes results on, such as
   * a gateway. An `isError` result resolves; a server that cannot be reached or a name this
   * mount does not own rejects, with the server's name in the message.
   */
  call(name: string, args: unknown, options?: { signal?: AbortSignal }): Promise<McpToolResult>;
  /** Remove this server's tools (one generation change) and close the connection. Idempotent. */
  unmount(): Promise<void>;
  /** The same as {@link McpMount.unmount}, for code that closes resources generically. */
  close(): Promise<void>;
}

/**
 * What the mount needs, checked, with the transport chosen.
 *
 * @internal Not in the published types: it names the SDK's transport type.
 */
export interface MountSettings {
  readonly name: string;
  readonly prefix: string | undefined;
  readonly timeoutMs: number;
  readonly clientInfo: { name: string; version: string };
  readonly onError: (error: Error) => void;
  readonly transport: ServerTransport;
}

/** The default longest wait for any one answer (connect, each list page, each call), in ms. */
export const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CLIENT_INFO = { name: 'loopctl', version: '0.1.0' };
const PREFIX_PATTERN = /^[a-zA-Z0-9_-]{1,48}$/;

/**
 * Check {@link mountMcp}'s options before anything connects or starts; throws a `TypeError`
 * or `RangeError` that names the bad option.
 *
 * @example
 * checkOptions({ url: 'https://mcp.example.com/github', prefix: 'github' }).name // 'github'
 * checkOptions({ command: 'node', args: ['server.js'] }).name // 'node server.js'
 *
 * @internal Returns {@link MountSettings}, which the published types leave out.
 */
export function checkOptions(options: McpMountOptions): MountSettings {
  if (!options || typeof options !== 'object')
    throw new TypeError('mountMcp: options with a url or a command are required');
  const warn = (error: Error): void => console.warn(`loopctl/mcp: ${error.message}`);
  const { prefix, timeoutMs, clientInfo, onError } = mergeOptions(
    { timeoutMs: DEFAULT_TIMEOUT_MS, clientInfo: DEFAULT_CLIENT_INFO, onError: warn },
    options,
  );
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix))) {
    throw new TypeError(
      `mountMcp: prefix must match ${PREFIX_PATTERN} so tool names stay valid, got ${JSON.stringify(prefix)}`,
    );
  }
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw new RangeError(`mountMcp: timeoutMs must be a positive number, got ${timeoutMs}`);
  const { label, transport } = chooseTransport(options);
  return {
    name: options.name ?? prefix ?? label,
    prefix,
    timeoutMs,
    clientInfo,
    onError,
    transport,
  };
}

function chooseTransport(options: McpMountOptions): { label: string; transport: ServerTransport } {
  const hasUrl = 'url' in options && options.url !== undefined;
  const hasCommand = 'command' in options && options.command !== undefined;
  if (hasUrl && hasCommand)
    throw new TypeError('mountMcp: give a url (Streamable HTTP) or a command (stdio), not both');
  if (hasCommand) return stdio(options as McpStdioMountOptions);
  if (!hasUrl) throw new TypeError('mountMcp: options need a url (Streamable HTTP) or a command (stdio)');
  const http = options as McpHttpMountOptions;
  const url = parseHttpUrl(http.url);
  return { label: url.host, transport: httpTransport({ url, headers: { ...http.headers }, fetch: http.fetch }) };
}

function stdio(options: McpStdioMountOptions): { label: string; transport: ServerTransport } {
  const { command, args = [], env = {}, cwd, onStderr } = options;
  if (typeof command !== 'string' || command.trim() === '')
    throw new TypeError(`mountMcp: command must be a non-empty string, got ${JSON.stringify(command)}`);
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === 'string'))
    throw new TypeError('mountMcp: args must be an array of strings');
  if (
    typeof env !== 'object' ||
    env === null ||
    Array.isArray(env) ||
    !Object.values(env).every((value) => typeof value === 'string')
  ) {
    throw new TypeError('mountMcp: env must be an object of names to string values');
  }
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === ''))
    throw new TypeError('mountMcp: cwd must be a non-empty string');
  const unsupported = stdioUnsupported();
  if (unsupported)
    throw new TypeError(
      `mountMcp: stdio MCP servers need Node or Deno (${unsupported}); mount this server over Streamable HTTP (url) instead`,
    );
  const label = [command, ...args.slice(0, 1)].map(baseName).join(' ');
  return { label, transport: stdioTransport({ command, args: [...args], env: { ...env }, cwd, onStderr }) };
}

function baseName(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? path;
}
