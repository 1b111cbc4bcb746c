/**
 * The gateway: many MCP servers mounted into one registry, searched with loopctl's selector
 * and called through one door. Each upstream is isolated: one that fails to start, dies, hangs
 * or lists garbage is reported in search results and tool errors, and the others keep working.
 * Runtime-neutral (no SDK server, no transport): `gateway-server.ts` serves it over MCP.
 */
import { errorMessage } from '../../describe-error.js';
import type { ToolRegistry } from '../../registry/registry.js';
import type { JsonSchema, ToolSchema } from '../../registry/schema.js';
import { searchTools } from '../../select/search-tools.js';
import type { AsyncToolSelector } from '../../select/selector.js';
import type { McpServerConfig } from './config.js';
import { asError } from './errors.js';
import type { GatewayServer } from './gateway-config.js';
import { boundResult, DEFAULT_MAX_RESULT_CHARS } from './gateway-result.js';
import { mountMcp } from './mount.js';
import type { McpMount, McpToolResult } from './options.js';

/** Options for {@link McpGateway}. */
export interface GatewayOptions {
  /** The registry the servers' tools are mounted into: a fresh `new ToolRegistry()`. */
  readonly registry: ToolRegistry;
  /** The configured servers, in order (`parseGatewayConfig`). */
  readonly servers: readonly GatewayServer[];
  /**
   * Ranks the tools for a search (loaded on first search when a function): the hybrid with the
   * offline model. Without one, or when it fails to load, BM25.
   */
  readonly selector?: AsyncToolSelector | (() => Promise<AsyncToolSelector>);
  /** The selector's name in search results. Default `'selector'`. */
  readonly selectorName?: string;
  /** Tools listed as themselves (registry names), beside the search and call tools. */
  readonly core?: readonly string[];
  /** Longest result one call passes on, in characters. Default {@link DEFAULT_MAX_RESULT_CHARS}. */
  readonly maxResultChars?: number;
  /** Longest a search or list waits for servers still starting, in ms. Default 20,000. */
  readonly startWaitMs?: number;
  /** How this gateway introduces itself to upstreams. */
  readonly clientInfo?: { name: string; version: string };
  /** Told what goes wrong outside any one request (an upstream that failed, a bad core name). */
  readonly onError?: (error: Error) => void;
}

/** One tool a search found, as the search tool returns it. */
export interface GatewayHit {
  readonly name: string;
  readonly server: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

/** What a search answers: the tools, how they were ranked, and the servers it could not search. */
export interface GatewaySearch {
  readonly tools: readonly GatewayHit[];
  readonly rankedBy: string;
  readonly unavailable: readonly { readonly server: string; readonly error: string }[];
  readonly note?: string;
}

/** One upstream's standing. */
interface Upstream {
  readonly name: string;
  readonly config?: McpServerConfig;
  mount?: McpMount;
  starting?: Promise<void>;
  /** Why it is down (start failed), or what last went wrong with it (a call, a re-list). */
  error?: string;
  /** When it was last tried (ms), for retrying a server that failed to start. */
  tried: number;
}

/** A server that failed to start is tried again at most this often, on a search or a call. */
const RETRY_MS = 30_000;
const MAX_LIMIT = 20;

/**
 * How many tools a search returns when the agent names no limit. The warm-up ranks at this
 * depth too: each depth is its own selector copy with its own lexical index and tool links,
 * so warming another depth would leave the agent's first search cold.
 *
 * @example
 * await gateway.search('read a file', DEFAULT_SEARCH_LIMIT)
 */
export const DEFAULT_SEARCH_LIMIT = 5;

/**
 * Many MCP servers behind one search and one call. `start()` mounts them all concurrently and
 * never rejects; `search` ranks every mounted tool; `call` passes a tool's result on, bounded.
 * One gateway serves any number of MCP sessions (`gatewayServer`, `gatewayHttp`): what one
 * session was shown (its found tools) is that session's, never the gateway's.
 *
 * @example
 * const gateway = new McpGateway({ registry: new ToolRegistry(), servers: parseGatewayConfig(text, 'mcp.json').servers })
 * gateway.start()
 * const found = await gateway.search('read a file', 5)
 * const result = await gateway.call(found.tools[0].name, { path: 'notes.txt' })
 * await gateway.close()
 */
export class McpGateway {
  readonly registry: ToolRegistry;
  readonly #options: GatewayOptions;
  readonly #upstreams: Upstream[];
  #selector: Promise<AsyncToolSelector> | undefined;
  #ordered: { readonly generation: number; readonly tools: readonly ToolSchema[] } | undefined;
  #selectorFailed: string | undefined;
  #owners = new Map<string, Upstream>();
  #ownersAt = -1;
  #closed = false;

  constructor(options: GatewayOptions) {
    this.#options = options;
    this.registry = options.registry;
    this.#upstreams = options.servers.map((server) => ({
      name: server.name,
      ...(server.config ? { config: server.config } : {}),
      ...(server.error ? { error: server.error } : {}),
      tried: 0,
    }));
  }

  /** Mount every configured server in the background; resolves once each has started or failed. */
  start(): Promise<void> {
    return Promise.all(this.#upstreams.map((upstream) => this.#mount(upstream))).then(() => undefined);
  }

  /** Each server's standing: its tool count when mounted, else why not. */
  status(): { server: string; tools?: number; error?: string; starting?: boolean }[] {
    return this.#upstreams.map((u) => ({
      server: u.name,
      ...(u.mount ? { tools: u.mount.tools.length } : {}),
      ...(u.error ? { error: u.error } : {}),
      ...(u.starting ? { starting: true } : {}),
    }));
  }

  /** The configured core tools (listed as themselves), once their servers have started. */
  async coreTools(): Promise<ToolSchema[]> {
    if ((this.#options.core ?? []).length > 0) await this.#settled();
    return [...new Set(this.#options.core)].flatMap((name) => this.registry.get(name) ?? []);
  }

  /**
   * Every mounted tool in a stable order: by server as configured, each server's tools as it
   * lists them. The registry's own order follows which server answered first, which changes
   * from start to start; ranked in this order, a vectors file `--build-vectors` wrote carries
   * derived state (tool links, lexical index) that fits the next start too. One list per
   * registry generation.
   *
   * @example
   * gateway.tools().map((tool) => tool.name) // ['fs__read_file', …, 'memory__create_entities', …]
   */
  tools(): readonly ToolSchema[] {
    const generation = this.registry.generation;
    if (this.#ordered?.generation !== generation) {
      const server = new Map<string, number>();
      this.#upstreams.forEach((upstream, i) => {
        for (const name of upstream.mount?.tools ?? []) server.set(name, i);
      });
      const last = this.#upstreams.length;
      const tools = this.registry
        .schemas()
        .map((tool, i) => ({ tool, i, at: server.get(tool.name) ?? last }))
        .sort((a, b) => a.at - b.at || a.i - b.i)
        .map(({ tool }) => tool);
      this.#ordered = { generation, tools: Object.freeze(tools) };
    }
    return this.#ordered.tools;
  }

  /** Whether `name` is a configured core tool. */
  isCore(name: string): boolean {
    return (this.#options.core ?? []).includes(name);
  }

  /**
   * The best `limit` tools for `query` over every mounted server, with their schemas; servers
   * that are down or still starting are named in `unavailable`.
   */
  async search(query: string, limit = DEFAULT_SEARCH_LIMIT, signal?: AbortSignal): Promise<GatewaySearch> {
    const k = Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
    await this.#settled(signal);
    this.#retryDown();
    const ranked = await this.#rank(query, this.tools(), k, signal);
    const hits = ranked.names.flatMap((name) => {
      const schema = this.registry.get(name);
      return schema ? [this.#hit(schema)] : [];
    });
    return {
      tools: hits,
      rankedBy: ranked.rankedBy,
      unavailable: this.#unavailable(),
      ...(ranked.note ? { note: ranked.note } : {}),
    };
  }

  /**
   * Call a tool by its listed name; the upstream's result comes back as sent (bounded in
   * size). Rejects with a message naming the server when it cannot be reached, and with the
   * nearest names when no server has the tool.
   */
  async call(name: string, args: unknown, signal?: AbortSignal): Promise<McpToolResult> {
    let owner = this.#owner(name);
    if (!owner) {
      await this.#settled(signal);
      this.#retryDown();
      owner = this.#owner(name);
    }
    if (!owner?.mount) throw new Error(await this.#unknown(name, signal));
    try {
      const result = await owner.mount.call(name, args ?? {}, signal ? { signal } : {});
      owner.error = undefined;
      return boundResult(result, this.#options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
    } catch (error) {
      if (!signal?.aborted) owner.error = errorMessage(error);
      throw error;
    }
  }

  /**
   * Load the selector and index the mounted tools now (the model, the corpus vectors, the
   * lexical index and tool links, or BM25's index), so the agent's first search is quick.
   * Lists nothing and never rejects.
   */
  async warm(): Promise<void> {
    // The model and any vectors file load while the servers start: neither needs their tools.
    const loading = this.#loadSelector();
    await this.#settled();
    await loading;
    await this.#rank('warm up', this.tools(), DEFAULT_SEARCH_LIMIT, undefined).catch(() => undefined);
  }

  /** Unmount every server (their processes end). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#upstreams.map((u) => u.starting?.catch(() => undefined)));
    await Promise.all(this.#upstreams.map((u) => u.mount?.unmount()));
  }

  // -- upstreams ---------------------------------------------------------------------------

  #mount(upstream: Upstream): Promise<void> {
    if (!upstream.config || upstream.mount || upstream.starting || this.#closed)
      return upstream.starting ?? Promise.resolve();
    upstream.tried = Date.now();
    const { clientInfo, onError } = this.#options;
    const options = {
      ...upstream.config,
      ...(clientInfo ? { clientInfo } : {}),
      // A re-list that failed, tools skipped, a stray stdout line: kept as the server's news.
      onError: (error: Error) => {
        upstream.error = error.message;
        onError?.(error);
      },
    };
    upstream.starting = mountMcp(this.registry, options).then(
      async (mount) => {
        if (this.#closed) return mount.unmount();
        upstream.mount = mount;
        upstream.error = undefined;
      },
      (error: unknown) => {
        upstream.error = errorMessage(error);
        onError?.(asError(error));
      },
    );
    return upstream.starting.finally(() => {
      upstream.starting = undefined;
    });
  }

  /** Servers that failed to start are tried again, in the background, once in a while. */
  #retryDown(): void {
    const now = Date.now();
    for (const upstream of this.#upstreams)
      if (upstream.config && !upstream.mount && !upstream.starting && now - upstream.tried >= RETRY_MS)
        void this.#mount(upstream);
  }

  /** Wait (at most `startWaitMs`) for servers still starting. */
  async #settled(signal?: AbortSignal): Promise<void> {
    const starting = this.#upstreams.flatMap((u) => (u.starting ? [u.starting] : []));
    if (starting.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const bound = new Promise<void>((done) => {
      timer = setTimeout(done, this.#options.startWaitMs ?? 20_000);
      signal?.addEventListener('abort', () => done(), { once: true });
    });
    await Promise.race([Promise.all(starting), bound]);
    clearTimeout(timer);
  }

  #unavailable(): { server: string; error: string }[] {
    return this.#upstreams.flatMap((u) => {
      if (u.mount && !u.error) return [];
      const error = u.starting ? 'still starting' : (u.error ?? 'not mounted');
      return [
        { server: u.name, error: u.mount ? `${u.mount.tools.length} tools listed; last error: ${error}` : error },
      ];
    });
  }

  /** The upstream that owns a registry name (rebuilt when the registry changes). */
  #owner(name: string): Upstream | undefined {
    if (this.#ownersAt !== this.registry.generation) {
      this.#owners = new Map();
      for (const upstream of this.#upstreams)
        for (const tool of upstream.mount?.tools ?? []) this.#owners.set(tool, upstream);
      this.#ownersAt = this.registry.generation;
    }
    return this.#owners.get(name);
  }

  async #unknown(name: string, signal?: AbortSignal): Promise<string> {
    const near = await searchTools(name.replace(/[_\W]+/g, ' '), this.registry.schemas(), { k: 3, signal }).catch(
      () => [],
    );
    const down = this.#unavailable().map((u) => `${u.server} (${u.error})`);
    return [
      `no MCP server behind this gateway has a tool named "${name}"`,
      near.length > 0 ? `; the nearest names: ${near.map((hit) => hit.name).join(', ')}` : '',
      down.length > 0 ? `; servers unavailable: ${down.join('; ')}` : '',
      '. Search first and use a name exactly as the search returned it.',
    ].join('');
  }

  // -- search ------------------------------------------------------------------------------

  async #rank(
    query: string,
    tools: readonly ToolSchema[],
    k: number,
    signal: AbortSignal | undefined,
  ): Promise<{ names: string[]; rankedBy: string; note?: string }> {
    const selector = await this.#loadSelector();
    if (selector) {
      try {
        const hits = await searchTools(query, tools, { selector, k, ...(signal ? { signal } : {}) });
        const rankedBy = hits.some((hit) => hit.rankedBy === 'selector')
          ? (this.#options.selectorName ?? 'selector')
          : 'bm25';
        return { names: hits.map((hit) => hit.name), rankedBy };
      } catch (error) {
        signal?.throwIfAborted();
        this.#disableSelector(error);
      }
    }
    const hits = await searchTools(query, tools, { k, ...(signal ? { signal } : {}) });
    const note = this.#selectorFailed
      ? `${this.#options.selectorName ?? 'the selector'} unavailable (${this.#selectorFailed}); ranked by BM25`
      : undefined;
    return { names: hits.map((hit) => hit.name), rankedBy: 'bm25', ...(note ? { note } : {}) };
  }

  async #loadSelector(): Promise<AsyncToolSelector | undefined> {
    const { selector } = this.#options;
    if (!selector || this.#selectorFailed) return undefined;
    this.#selector ??= typeof selector === 'function' ? selector() : Promise.resolve(selector);
    try {
      return await this.#selector;
    } catch (error) {
      this.#disableSelector(error);
      return undefined;
    }
  }

  /** A selector that cannot load or rank is set aside for the session: BM25 ranks from then on. */
  #disableSelector(error: unknown): void {
    if (this.#selectorFailed) return;
    this.#selectorFailed = errorMessage(error);
    this.#options.onError?.(
      new Error(
        `${this.#options.selectorName ?? 'the selector'} unavailable, searching with BM25: ${this.#selectorFailed}`,
      ),
    );
  }

  #hit(schema: ToolSchema): GatewayHit {
    return {
      name: schema.name,
      server: this.#owner(schema.name)?.name ?? '',
      description: schema.description,
      inputSchema: schema.parameters ?? { type: 'object', properties: {} },
    };
  }
}
