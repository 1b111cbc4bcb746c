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
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { raceAbort } from '../limits/abort.js';
import type { ToolHandler, ToolRegistry } from '../registry/registry.js';
import type { JsonSchema, ToolSchema } from '../registry/schema.js';

export { mountAll, parseMcpServers } from './mcp-config.js';
export type { McpServerConfig, MountAllOptions } from './mcp-config.js';

/** A `fetch` the transport uses instead of the global one (auth proxies, tests). */
export type McpFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

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

/**
 * Thrown (and carried into tool error results) when a server cannot be reached or answer in time.
 *
 * @example
 * await mount.refresh().catch((error) => {
 *   if (error instanceof McpUnreachableError) console.warn(error.message) // MCP server github unreachable: …
 * })
 */
export class McpUnreachableError extends Error {
  override readonly name = 'McpUnreachableError';
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CLIENT_INFO = { name: 'loopctl', version: '0.1.0' };
const MAX_PAGES = 1000;
const PREFIX_PATTERN = /^[a-zA-Z0-9_-]{1,48}$/;
const WIRE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_NAME = 64;
// Bounded so unmounting never hangs on a server that accepts the DELETE and never answers.
const TERMINATE_WAIT_MS = 2_000;

/**
 * Connect to an MCP server over Streamable HTTP, list its tools (following `nextCursor`
 * pagination) and register them: the MCP `inputSchema` becomes `parameters`, the
 * description (else the title) the description. Calls go to the server with the run's abort
 * signal; `isError` results, protocol errors and an unreachable server all come back as tool
 * error results, never throws, and leave every other tool working. Rejects when the server
 * cannot be reached or a tool name is already registered (use `prefix`).
 *
 * @example
 * const registry = new ToolRegistry()
 * const github = await mountMcp(registry, {
 *   url: 'https://mcp.example.com/github',
 *   prefix: 'github',
 *   headers: { Authorization: `Bearer ${token}` },
 * })
 * github.tools // ['github__create_issue', 'github__list_issues', …]
 * const loop = new BareLoop({ client, registry }).withAsyncToolSelector(new EmbeddingSelector(embedder))
 * // …
 * await github.unmount()
 */
export async function mountMcp(registry: ToolRegistry, options: McpMountOptions): Promise<McpMount> {
  const settings = checkOptions(options);
  const sdk = await loadSdk();
  const mount = new Mount(registry, settings, sdk);
  await mount.start();
  return mount;
}

// ---------------------------------------------------------------------------------------
// Settings and the lazily loaded SDK

interface Settings {
  readonly url: URL;
  readonly name: string;
  readonly prefix: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly clientInfo: { name: string; version: string };
  readonly fetch: McpFetch | undefined;
  readonly onError: (error: Error) => void;
}

function checkOptions(options: McpMountOptions): Settings {
  if (!options || typeof options !== 'object') throw new TypeError('mountMcp: options with a url are required');
  const url = parseUrl(options.url);
  const { prefix, timeoutMs = DEFAULT_TIMEOUT_MS } = options;
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix))) {
    throw new TypeError(`mountMcp: prefix must match ${PREFIX_PATTERN} so tool names stay valid, got ${JSON.stringify(prefix)}`);
  }
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new RangeError(`mountMcp: timeoutMs must be a positive number, got ${timeoutMs}`);
  return {
    url,
    name: options.name ?? prefix ?? url.host,
    prefix,
    headers: { ...options.headers },
    timeoutMs,
    clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
    fetch: options.fetch,
    onError: options.onError ?? ((error) => console.warn(`loopctl/mcp: ${error.message}`)),
  };
}

function parseUrl(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`mountMcp: url must be an absolute http(s) URL, got ${JSON.stringify(String(value))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`mountMcp: url must be http(s), got ${url.protocol}`);
  }
  return url;
}

type Sdk = Awaited<ReturnType<typeof importSdk>>;
let sdkPromise: Promise<Sdk> | undefined;

async function importSdk() {
  const [client, http, types, validation] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('@modelcontextprotocol/sdk/validation/cfworker'),
  ]);
  return {
    Client: client.Client,
    Transport: http.StreamableHTTPClientTransport,
    HttpError: http.StreamableHTTPError,
    McpError: types.McpError,
    ErrorCode: types.ErrorCode,
    ListChanged: types.ToolListChangedNotificationSchema,
    // Ajv (the SDK's default) compiles with `new Function`, which Workers forbid.
    Validator: validation.CfWorkerJsonSchemaValidator,
  };
}

function loadSdk(): Promise<Sdk> {
  sdkPromise ??= importSdk().catch((error: unknown) => {
    sdkPromise = undefined;
    throw new Error(`loopctl/mcp needs the optional peer dependency @modelcontextprotocol/sdk (${describe(error)})`);
  });
  return sdkPromise;
}

// ---------------------------------------------------------------------------------------
// The mount

interface Connection {
  readonly client: Client;
  readonly transport: InstanceType<Sdk['Transport']>;
}

/** One planned registration: the registry name and the server's tool. */
interface Planned {
  readonly local: string;
  readonly tool: McpTool;
}

class Mount implements McpMount {
  readonly name: string;
  readonly #registry: ToolRegistry;
  readonly #settings: Settings;
  readonly #sdk: Sdk;
  /** Registry name → the server's name, for the tools this mount registered. */
  #owned = new Map<string, string>();
  #tools: readonly string[] = Object.freeze([]);
  /** The current connection, opening or open. */
  #connection: Promise<Connection> | undefined;
  /** The current connection once open: notifications from any other are stale. */
  #live: Connection | undefined;
  #connections = 0;
  #refreshing: Promise<void> | undefined;
  #dirty = false;
  #closing: Promise<void> | undefined;

  constructor(registry: ToolRegistry, settings: Settings, sdk: Sdk) {
    this.#registry = registry;
    this.#settings = settings;
    this.#sdk = sdk;
    this.name = settings.name;
  }

  get tools(): readonly string[] {
    return this.#tools;
  }

  /** Connect, list and register; on any failure leave the registry untouched and close. */
  async start(): Promise<void> {
    try {
      const plan = this.#plan(await this.#listAll());
      const taken = plan.filter(({ local }) => this.#registry.has(local)).map(({ local }) => local);
      if (taken.length > 0) {
        throw new Error(
          `MCP server ${this.name}: ${taken.length === 1 ? 'tool' : 'tools'} ${taken.map((n) => `"${n}"`).join(', ')} already registered; mount it with a distinct prefix`,
        );
      }
      this.#apply(plan);
    } catch (error) {
      await this.#disconnect();
      throw error;
    }
  }

  refresh(): Promise<void> {
    if (this.#closing) return Promise.resolve();
    // A change announced while a re-list is running may have missed it: list once more after.
    if (this.#refreshing) {
      this.#dirty = true;
      return this.#refreshing;
    }
    const run = async (): Promise<void> => {
      try {
        do {
          this.#dirty = false;
          const tools = await this.#listAll();
          if (this.#closing) return;
          this.#applyReporting(this.#plan(tools));
        } while (this.#dirty && !this.#closing);
      } finally {
        this.#refreshing = undefined;
      }
    };
    this.#refreshing = run();
    return this.#refreshing;
  }

  unmount(): Promise<void> {
    this.#closing ??= this.#unmount();
    return this.#closing;
  }

  close(): Promise<void> {
    return this.unmount();
  }

  async #unmount(): Promise<void> {
    const owned = [...this.#owned.keys()];
    this.#registry.batch((registry) => {
      for (const local of owned) registry.unregister(local);
    });
    this.#owned = new Map();
    this.#tools = Object.freeze([]);
    await this.#disconnect();
  }

  // -- registry side ----------------------------------------------------------------------

  /** Registry names for a listing, keeping names given before so a tool's name is stable. */
  #plan(tools: readonly McpTool[]): Planned[] {
    const previous = new Map([...this.#owned].map(([local, remote]) => [remote, local]));
    const names = assignNames(
      tools.map((tool) => tool.name),
      this.#settings.prefix,
      previous,
    );
    return tools.map((tool) => ({ local: names.get(tool.name) as string, tool }));
  }

  /** Apply a later listing; tools whose names another owner took are skipped and reported. */
  #applyReporting(plan: readonly Planned[]): void {
    const taken = plan.filter(({ local }) => !this.#owned.has(local) && this.#registry.has(local));
    if (taken.length > 0) {
      const names = taken.map(({ local }) => `"${local}"`).join(', ');
      this.#settings.onError(new Error(`MCP server ${this.name}: skipped new tools whose names are already registered: ${names}`));
    }
    this.#apply(plan.filter((entry) => !taken.includes(entry)));
  }

  /** Make the registry hold exactly `plan` for this server, as one generation change. */
  #apply(plan: readonly Planned[]): void {
    const next = new Map(plan.map(({ local, tool }) => [local, tool.name]));
    this.#registry.batch((registry) => {
      for (const local of this.#owned.keys()) if (!next.has(local)) registry.unregister(local);
      for (const { local, tool } of plan) registry.register(toSchema(local, tool), this.#handler(tool.name), { replace: true });
    });
    this.#owned = next;
    this.#tools = Object.freeze([...next.keys()]);
  }

  #handler(remote: string): ToolHandler {
    return (args, { signal }) => this.#call(remote, args, signal);
  }

  // -- server side ------------------------------------------------------------------------

  async #call(remote: string, args: unknown, signal: AbortSignal): Promise<string> {
    if (this.#closing) throw new Error(`MCP server ${this.name} is unmounted`);
    const params = { name: remote, arguments: (args ?? {}) as Record<string, unknown> };
    const result = (await this.#request(`tools/call "${remote}"`, signal, (client, options) =>
      client.callTool(params, undefined, options),
    )) as CallToolResult;
    const text = renderContent(result);
    if (result.isError) throw new Error(text || `MCP tool "${remote}" reported an error without saying what`);
    return text;
  }

  /** Every tool of the server, following `nextCursor`; a name listed twice keeps its first entry. */
  async #listAll(): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    const seen = new Set<string>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? undefined : { cursor };
      const result = await this.#request('tools/list', undefined, (client, options) => client.listTools(params, options), true);
      for (const tool of result.tools) {
        if (seen.has(tool.name)) continue;
        seen.add(tool.name);
        tools.push(tool);
      }
      const next = result.nextCursor;
      if (next === undefined || next === '') return tools;
      // A server that hands back a cursor it gave before would page forever.
      if (cursors.has(next)) throw new Error(`MCP server ${this.name} repeated a tools/list cursor`);
      cursors.add(next);
      cursor = next;
    }
    throw new Error(`MCP server ${this.name} listed more than ${MAX_PAGES} pages of tools`);
  }

  /**
   * Send one request with the caller's signal and the mount's timeout, turning failures into
   * errors that name the server. A transport failure drops the connection so the next
   * request reconnects; a request that cannot have taken effect is resent once on the fresh
   * connection.
   */
  async #request<T>(
    what: string,
    signal: AbortSignal | undefined,
    send: (client: Client, options: RequestOptions) => Promise<T>,
    idempotent = false,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const connection = await this.#connect(signal);
      const linked = linkSignal(signal);
      try {
        return await send(connection.client, { signal: linked.signal, timeout: this.#settings.timeoutMs });
      } catch (error) {
        signal?.throwIfAborted();
        const kind = this.#classify(error);
        if (kind === 'protocol') throw new Error(`MCP server ${this.name} returned an error for ${what}: ${this.#describe(error)}`);
        if (kind === 'timeout') throw new McpUnreachableError(`MCP server ${this.name} unreachable: no answer to ${what} within ${this.#settings.timeoutMs} ms`);
        this.#drop(connection);
        // Resend only what cannot have taken effect: a request the server answered 404 for
        // (it forgot the session), or a listing. A tool call lost in transit may have run.
        if (attempt === 0 && (kind === 'session' || idempotent)) continue;
        throw new McpUnreachableError(`MCP server ${this.name} unreachable: ${this.#describe(error)}`);
      } finally {
        linked.dispose();
      }
    }
  }

  #classify(error: unknown): 'protocol' | 'timeout' | 'session' | 'transport' {
    const { McpError, ErrorCode, HttpError } = this.#sdk;
    if (error instanceof HttpError) return error.code === 404 ? 'session' : 'transport';
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) return 'timeout';
      if (error.code === ErrorCode.ConnectionClosed) return 'transport';
      return 'protocol';
    }
    // A result that does not parse as MCP is the server's fault, not the network's.
    if (error instanceof Error && error.name === 'ZodError') return 'protocol';
    return 'transport';
  }

  /** An error as one readable line: the HTTP status for transport errors, one `MCP error` prefix. */
  #describe(error: unknown): string {
    if (error instanceof this.#sdk.HttpError) {
      const text = error.message.replace(/^Streamable HTTP error: /, '');
      return `HTTP ${error.code}: ${jsonRpcMessage(text) ?? text}`;
    }
    // A server that throws an McpError sends its already-prefixed message; the SDK prefixes it again.
    return describe(error).replace(/^(MCP error -?\d+: )\1+/, '$1');
  }

  /** The live connection, opening one if needed. Waiting for it respects the caller's signal. */
  #connect(signal: AbortSignal | undefined): Promise<Connection> {
    if (this.#closing) return Promise.reject(new Error(`MCP server ${this.name} is unmounted`));
    if (!this.#connection) {
      const opening = this.#open();
      this.#connection = opening;
      opening.then(
        (connection) => {
          if (this.#connection === opening) this.#live = connection;
        },
        // A failed attempt is forgotten, so the next request tries again.
        () => {
          if (this.#connection === opening) this.#connection = undefined;
        },
      );
    }
    return signal ? raceAbort(this.#connection, signal) : this.#connection;
  }

  async #open(): Promise<Connection> {
    const { Client, Transport, Validator, ListChanged } = this.#sdk;
    const { url, headers, fetch, clientInfo, timeoutMs } = this.#settings;
    // Wrapped so a browser's `window.fetch` is never invoked as a method of the transport.
    const via: McpFetch | undefined = fetch ? (input, init) => fetch(input, init) : undefined;
    const transport = new Transport(url, { requestInit: { headers: { ...headers } }, ...(via ? { fetch: via } : {}) });
    const client = new Client(clientInfo, { capabilities: {}, jsonSchemaValidator: new Validator() });
    const connection: Connection = { client, transport };
    // Transport noise (a dropped notification stream it retries) surfaces through failed
    // requests instead, where it reaches the model as a tool error result.
    client.onerror = () => undefined;
    client.setNotificationHandler(ListChanged, () => {
      if (this.#live === connection) this.#refreshInBackground();
    });
    try {
      await client.connect(transport, { timeout: timeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      const reason = this.#classify(error) === 'timeout' ? `no answer to initialize within ${timeoutMs} ms` : this.#describe(error);
      throw new McpUnreachableError(`MCP server ${this.name} unreachable: ${reason}`);
    }
    this.#connections += 1;
    // A reconnect may follow a restart with a different tool list, announced while we were away.
    if (this.#connections > 1) queueMicrotask(() => this.#refreshInBackground());
    return connection;
  }

  #refreshInBackground(): void {
    this.refresh().catch((error: unknown) => {
      // A re-list cut short by unmount is expected, not news.
      if (!this.#closing) this.#settings.onError(asError(error));
    });
  }

  /** Forget a broken connection (if it is still the live one) and close it in the background. */
  #drop(connection: Connection): void {
    if (this.#live === connection) {
      this.#live = undefined;
      this.#connection = undefined;
    }
    void connection.client.close().catch(() => undefined);
  }

  async #disconnect(): Promise<void> {
    const pending = this.#connection;
    this.#connection = undefined;
    this.#live = undefined;
    const connection = await pending?.catch(() => undefined);
    if (!connection) return;
    // Tell the server the session is over (politely, bounded), then close our side.
    await withDeadline(connection.transport.terminateSession().catch(() => undefined), TERMINATE_WAIT_MS);
    await connection.client.close().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------
// Pure helpers

/** The registry's view of an MCP tool. */
function toSchema(local: string, tool: McpTool): ToolSchema {
  const description = tool.description ?? tool.title ?? tool.annotations?.title ?? '';
  const input = tool.inputSchema as unknown;
  // The spec requires an object schema; a server that sends none still gets a callable tool.
  const parameters: JsonSchema = isPlainObject(input) ? input : { type: 'object', properties: {} };
  return { name: local, description, parameters };
}

/**
 * Registry names for a server's tool names: the prefix joined by `__`, characters outside
 * `[a-zA-Z0-9_-]` replaced by `_`, and a short hash of the server's name added when that
 * still collides or runs past 64 characters. Names that need no change are claimed first,
 * and names given before are kept, so one tool never renames another.
 *
 * @example
 * assignNames(['create_issue', 'repo.list'], 'github')
 * // Map { 'create_issue' => 'github__create_issue', 'repo.list' => 'github__repo_list' }
 */
export function assignNames(remotes: readonly string[], prefix: string | undefined, previous: ReadonlyMap<string, string> = new Map()): Map<string, string> {
  const result = new Map<string, string>();
  const claimed = new Set<string>();
  const claim = (remote: string, local: string): void => {
    result.set(remote, local);
    claimed.add(local);
  };
  const wanted = (remote: string): string => joinPrefix(prefix, remote);
  for (const remote of remotes) {
    const kept = previous.get(remote);
    if (kept !== undefined && !claimed.has(kept)) claim(remote, kept);
  }
  for (const remote of remotes) {
    if (result.has(remote)) continue;
    const local = wanted(remote);
    if (WIRE_NAME.test(local) && !claimed.has(local)) claim(remote, local);
  }
  for (const remote of remotes) {
    if (result.has(remote)) continue;
    const readable = wanted(remote).replace(/[^a-zA-Z0-9_-]/g, '_');
    if (readable.length <= MAX_NAME && !claimed.has(readable)) {
      claim(remote, readable);
      continue;
    }
    let salt = 0;
    let hashed = hashedName(readable, remote, salt);
    while (claimed.has(hashed)) hashed = hashedName(readable, remote, ++salt);
    claim(remote, hashed);
  }
  return result;
}

function joinPrefix(prefix: string | undefined, remote: string): string {
  if (!prefix) return remote;
  return /[_-]$/.test(prefix) ? `${prefix}${remote}` : `${prefix}__${remote}`;
}

function hashedName(readable: string, remote: string, salt: number): string {
  const hash = fnv1a(salt === 0 ? remote : `${remote}\u0000${salt}`);
  return `${readable.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * A tool result as text for the model: text parts as they are, embedded text resources
 * with their URI, anything else (images, audio, blobs, links) as a one-line summary. With
 * no content, the structured content as JSON.
 *
 * @example
 * renderContent({ content: [{ type: 'text', text: 'Rendered.' }, { type: 'image', data: png, mimeType: 'image/png' }] })
 * // 'Rendered.\n[image image/png, 5120 bytes]'
 */
export function renderContent(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const parts = Array.isArray(result.content) ? result.content : [];
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.map(renderPart).join('\n');
}

function renderPart(part: CallToolResult['content'][number]): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}, ${base64Bytes(part.data)} bytes]`;
    case 'resource_link':
      return `[resource link ${part.uri}${part.name ? ` (${part.name})` : ''}]`;
    case 'resource': {
      const { resource } = part;
      if ('text' in resource && typeof resource.text === 'string') return `[resource ${resource.uri}]\n${resource.text}`;
      const blob = 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '';
      return `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, ${base64Bytes(blob)} bytes]`;
    }
    default:
      return `[${(part as { type?: unknown }).type ?? 'unknown'} content]`;
  }
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * A signal that follows `outer` until disposed. The SDK never removes the abort listener it
 * adds, so handing it the run's own signal would pile listeners onto it and, on a later
 * abort, send cancellations for requests that finished long ago.
 */
function linkSignal(outer: AbortSignal | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (!outer) return { signal: controller.signal, dispose: () => undefined };
  const onAbort = (): void => controller.abort(outer.reason);
  if (outer.aborted) onAbort();
  else outer.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, dispose: () => outer.removeEventListener('abort', onAbort) };
}

/** `prefix: {"jsonrpc":"2.0","error":{"message":"…"}}` → `prefix: …`, when the body is JSON-RPC. */
function jsonRpcMessage(text: string): string | undefined {
  const start = text.indexOf('{');
  if (start < 0) return undefined;
  try {
    const body = JSON.parse(text.slice(start)) as { error?: { message?: unknown } };
    const message = body?.error?.message;
    return typeof message === 'string' ? `${text.slice(0, start)}${message}` : undefined;
  } catch {
    return undefined;
  }
}

/** Wait for `promise`, at most `ms`; the timer is cleared so it never holds a process open. */
async function withDeadline(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  try {
    await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function isPlainObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** An error's message, with its cause's (e.g. `fetch failed (connect ECONNREFUSED …)`). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const detail = cause instanceof Error ? cause.message : undefined;
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}
