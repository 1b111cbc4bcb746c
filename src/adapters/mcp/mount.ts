/**
 * The mount: one MCP client per server, its tools kept in a {@link ToolRegistry}, calls
 * dispatched to the server, failures turned into errors that name the server.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../describe-error.js';
import { raceAbort } from '../../limits/abort.js';
import type { ToolHandler, ToolRegistry } from '../../registry/registry.js';
import { renderContent, toSchema } from './content.js';
import { asError, McpUnreachableError } from './errors.js';
import { assignNames } from './names.js';
import {
  checkOptions,
  type McpMount,
  type McpMountOptions,
  type McpToolResult,
  type MountSettings,
} from './options.js';
import { loadSdk, type Sdk } from './sdk.js';
import { linkSignal } from './signals.js';
import { STDOUT_ERROR } from './stdio-transport.js';
import type { ConnectionTransport } from './transport.js';

const MAX_PAGES = 1000;
// A liveness probe after a stream broke: a server that is gone fails it at once; one that
// is merely busy may take a while, and is left alone.
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Connect to an MCP server, over Streamable HTTP (`url`, every runtime) or stdio (`command`:
 * the server is started as a child process; Node and Deno), list its tools (following
 * `nextCursor` pagination) and register them: the MCP `inputSchema` becomes `parameters`,
 * the description (else the title) the description. Calls go to the server with the run's
 * abort signal; `isError` results, protocol errors, an unreachable server and a connection
 * lost mid-call (a server that died, a process that exited) all come back as tool error
 * results at once, never throw, and leave every other tool working. Rejects when the server
 * cannot be reached or started (with a stdio server's stderr tail), or a tool name is already
 * registered (use `prefix`). A stdio server's process ends on `unmount()`.
 *
 * @example
 * const registry = new ToolRegistry()
 * const github = await mountMcp(registry, {
 *   url: 'https://mcp.example.com/github',
 *   prefix: 'github',
 *   headers: { Authorization: `Bearer ${token}` },
 * })
 * github.tools // ['github__create_issue', 'github__list_issues', …]
 * const memory = await mountMcp(registry, { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'], prefix: 'memory' })
 * const loop = new BareLoop({ client, registry }).withAsyncToolSelector(new EmbeddingSelector(embedder))
 * // …
 * await Promise.all([github.unmount(), memory.unmount()])
 */
export async function mountMcp(registry: ToolRegistry, options: McpMountOptions): Promise<McpMount> {
  const settings = checkOptions(options);
  const sdk = await loadSdk();
  const mount = new Mount(registry, settings, sdk);
  await mount.start();
  return mount;
}

/** One open connection: the SDK client and the transport under it. */
interface Connection {
  readonly client: Client;
  readonly io: ConnectionTransport;
  /** Why the connection was found gone (its in-flight requests failed with this), once it was. */
  lost?: string;
  /**
   * When it was found gone after a stream broke: the last request sent before the break.
   * Later requests went to a server that was already gone or had forgotten the session, so
   * they cannot have run and may be resent.
   */
  lostAfter?: number;
  /** A liveness probe is running. */
  probing?: boolean;
}

/** One planned registration: the registry name and the server's tool. */
interface Planned {
  readonly local: string;
  readonly tool: McpTool;
}

type Failure = 'protocol' | 'timeout' | 'session' | 'transport';

class Mount implements McpMount {
  readonly name: string;
  readonly #registry: ToolRegistry;
  readonly #settings: MountSettings;
  readonly #sdk: Sdk;
  /** Registry name → the server's name, for the tools this mount registered. */
  #owned = new Map<string, string>();
  #tools: readonly string[] = Object.freeze([]);
  /** The current connection, opening or open. */
  #connection: Promise<Connection> | undefined;
  /** The current connection once open: notifications from any other are stale. */
  #live: Connection | undefined;
  #connections = 0;
  /** Numbers every request sent, so a lost connection can tell which went out after a break. */
  #sent = 0;
  #refreshing: Promise<void> | undefined;
  #dirty = false;
  #closing: Promise<void> | undefined;

  constructor(registry: ToolRegistry, settings: MountSettings, sdk: Sdk) {
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
      this.#settings.onError(
        new Error(`MCP server ${this.name}: skipped new tools whose names are already registered: ${names}`),
      );
    }
    this.#apply(plan.filter((entry) => !taken.includes(entry)));
  }

  /** Make the registry hold exactly `plan` for this server, as one generation change. */
  #apply(plan: readonly Planned[]): void {
    const next = new Map(plan.map(({ local, tool }) => [local, tool.name]));
    this.#registry.batch((registry) => {
      for (const local of this.#owned.keys()) if (!next.has(local)) registry.unregister(local);
      for (const { local, tool } of plan)
        registry.register(toSchema(local, tool), this.#handler(tool.name), { replace: true });
    });
    this.#owned = next;
    this.#tools = Object.freeze([...next.keys()]);
  }

  #handler(remote: string): ToolHandler {
    return (args, { signal }) => this.#call(remote, args, signal);
  }

  // -- server side ------------------------------------------------------------------------

  call(name: string, args: unknown, options: { signal?: AbortSignal } = {}): Promise<McpToolResult> {
    const remote = this.#owned.get(name);
    if (remote === undefined) return Promise.reject(new Error(`MCP server ${this.name} has no tool "${name}"`));
    return this.#callRemote(remote, args, options.signal);
  }

  async #call(remote: string, args: unknown, signal: AbortSignal): Promise<string> {
    const result = await this.#callRemote(remote, args, signal);
    const text = renderContent(result);
    if (result.isError) throw new Error(text || `MCP tool "${remote}" reported an error without saying what`);
    return text;
  }

  async #callRemote(remote: string, args: unknown, signal: AbortSignal | undefined): Promise<CallToolResult> {
    if (this.#closing) throw new Error(`MCP server ${this.name} is unmounted`);
    const params = { name: remote, arguments: (args ?? {}) as Record<string, unknown> };
    return (await this.#request(`tools/call "${remote}"`, signal, (client, options) =>
      client.callTool(params, undefined, options),
    )) as CallToolResult;
  }

  /** Every tool of the server, following `nextCursor`; a name listed twice keeps its first entry. */
  async #listAll(): Promise<McpTool[]> {
    const tools: McpTool[] = [];
    const seen = new Set<string>();
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? undefined : { cursor };
      const result = await this.#request(
        'tools/list',
        undefined,
        (client, options) => client.listTools(params, options),
        true,
      );
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
      const number = ++this.#sent;
      try {
        return await send(connection.client, { signal: linked.signal, timeout: this.#settings.timeoutMs });
      } catch (error) {
        signal?.throwIfAborted();
        const lost = this.#lostReason(connection, error);
        const sentAfterBreak =
          lost !== undefined && connection.lostAfter !== undefined && number > connection.lostAfter;
        const kind =
          lost === undefined ? this.#classify(connection.io, error) : sentAfterBreak ? 'session' : 'transport';
        if (kind === 'protocol')
          throw new Error(
            `MCP server ${this.name} returned an error for ${what}: ${this.#describe(connection.io, error)}`,
          );
        if (kind === 'timeout')
          throw new McpUnreachableError(
            `MCP server ${this.name} unreachable: no answer to ${what} within ${this.#settings.timeoutMs} ms`,
          );
        this.#drop(connection);
        // Resend only what cannot have taken effect: a request the server answered 404 for
        // (it forgot the session) or sent after the connection broke, or a listing. A tool
        // call lost in transit may have run.
        if (attempt === 0 && (kind === 'session' || idempotent)) continue;
        if (lost !== undefined)
          throw new McpUnreachableError(
            `MCP server ${this.name} unreachable: connection lost during ${what} (${lost})`,
          );
        throw new McpUnreachableError(`MCP server ${this.name} unreachable: ${this.#describe(connection.io, error)}`);
      } finally {
        linked.dispose();
      }
    }
  }

  /**
   * Why a request failed with "connection closed" when the connection was found gone (the
   * server died, the process exited), else undefined.
   */
  #lostReason(connection: Connection, error: unknown): string | undefined {
    const { McpError, ErrorCode } = this.#sdk;
    if (!(error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) return undefined;
    return connection.io.lostReason() ?? connection.lost;
  }

  #classify(io: ConnectionTransport, error: unknown): Failure {
    const own = io.classify(error);
    if (own) return own;
    const { McpError, ErrorCode } = this.#sdk;
    if (error instanceof McpError) {
      if (error.code === ErrorCode.RequestTimeout) return 'timeout';
      if (error.code === ErrorCode.ConnectionClosed) return 'transport';
      return 'protocol';
    }
    // A result that does not parse as MCP is the server's fault, not the network's.
    if (error instanceof Error && error.name === 'ZodError') return 'protocol';
    return 'transport';
  }

  /** An error as one readable line: the transport's account if it has one, one `MCP error` prefix. */
  #describe(io: ConnectionTransport, error: unknown): string {
    // A server that throws an McpError sends its already-prefixed message; the SDK prefixes it again.
    return io.describe(error) ?? errorMessage(error).replace(/^(MCP error -?\d+: )\1+/, '$1');
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
    const { Client, Validator, ListChanged } = this.#sdk;
    const { clientInfo, timeoutMs } = this.#settings;
    const io = await this.#settings.transport.create();
    const client = new Client(clientInfo, { capabilities: {}, jsonSchemaValidator: new Validator() });
    const connection: Connection = { client, io };
    client.onerror = (error) => this.#onTransportError(connection, error);
    // The transport closed under us (a stdio server exited): the next request reconnects.
    client.onclose = () => {
      if (this.#live === connection) this.#drop(connection);
    };
    client.setNotificationHandler(ListChanged, () => {
      if (this.#live === connection) this.#refreshInBackground();
    });
    try {
      await client.connect(io.transport, { timeout: timeoutMs });
    } catch (error) {
      // Closing the client closes its transport (a stdio server's process is ended).
      await client.close().catch(() => undefined);
      const reason =
        io.lostReason() ??
        (this.#classify(io, error) === 'timeout'
          ? `no answer to initialize within ${timeoutMs} ms`
          : this.#describe(io, error));
      throw new McpUnreachableError(`MCP server ${this.name} unreachable: ${reason}`);
    }
    this.#connections += 1;
    // A reconnect may follow a restart with a different tool list, announced while we were away.
    if (this.#connections > 1) queueMicrotask(() => this.#refreshInBackground());
    return connection;
  }

  /**
   * A transport error outside any one request, typically a stream that broke. The SDK would
   * leave the requests in flight waiting for their timeout, so ask whether the server is still
   * there: when the probe cannot reach it (or it forgot the session), the connection is lost
   * and closed, which fails every request in flight at once. A parse error or a busy server
   * (the probe times out) changes nothing.
   */
  #onTransportError(connection: Connection, error: unknown): void {
    if (this.#live !== connection || connection.lost !== undefined || connection.probing) return;
    // A stray stdout line from a stdio server: dropped, worth telling, not a lost connection.
    if (error instanceof Error && error.name === STDOUT_ERROR) {
      this.#settings.onError(new Error(`MCP server ${this.name}: ${error.message}`));
      return;
    }
    if (error instanceof SyntaxError || (error instanceof Error && error.name === 'ZodError')) return;
    connection.probing = true;
    const sentBeforeBreak = this.#sent;
    const timeout = Math.min(PROBE_TIMEOUT_MS, this.#settings.timeoutMs);
    connection.client.ping({ timeout }).then(
      () => {
        connection.probing = false;
      },
      (failure: unknown) => {
        connection.probing = false;
        const kind = this.#classify(connection.io, failure);
        if (kind !== 'transport' && kind !== 'session') return;
        connection.lost = this.#describe(connection.io, failure);
        connection.lostAfter = sentBeforeBreak;
        this.#drop(connection);
      },
    );
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
    await connection.io.end();
    await connection.client.close().catch(() => undefined);
  }
}
