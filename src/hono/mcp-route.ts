/**
 * `/mcp`: the MCP gateway (issue 50) as a route of the app, so the Workers, Node and Deno
 * entries serve it through one code path. The servers come from `LOOPCTL_MCP_SERVERS` (the
 * `mcpServers` JSON editors use, or `loopctl/mcp`'s array); the gateway is built on the first
 * request and kept for the app's life (one per process or isolate), and each request is served
 * sessionless (`gatewayStateless`), so any isolate answers any request of a client. The MCP
 * SDK and the gateway load on first use: an app without servers never imports them.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { rpcError } from '../adapters/mcp/gateway-rpc.js';
import type { GatewaySessions } from '../adapters/mcp/gateway-sessions.js';
import type { GatewayFetch } from '../adapters/mcp/gateway-stateless.js';
import { errorMessage } from '../describe-error.js';
import { digestHex } from '../digest.js';
// Static, as app.ts's import of the same module: a dynamic one would split the core's chunk.
import { ToolRegistry } from '../registry/registry.js';
import type { AsyncToolSelector } from '../select/selector.js';
import type { AppEnv } from './app-env.js';
import { credentialOf } from './proxy/learn/tenant-id.js';
import { BodyReadError, readBody } from './read-body.js';
import type { UploadBudget } from './upload-budget.js';

/** The path the gateway answers on. */
export const MCP_PATH = '/mcp';

/** Options for the `/mcp` route (`AppOptions.mcpGateway`), beyond `LOOPCTL_MCP_SERVERS`. */
export interface McpRouteOptions {
  /**
   * Only servers with a `url` (Cloudflare Workers cannot start processes): a `command` entry is
   * reported as unavailable in search results, never started. `createWorker` sets it.
   */
  readonly remoteOnly?: boolean;
  /** Read for `${VAR}` in the servers' URLs and headers (keep keys in secrets). Default none. */
  readonly vars?: Readonly<Record<string, unknown>>;
  /**
   * Where sessions' found tools live when the configuration's `"loopctl": { "exposeFound": true }`
   * asks for them: shared by every isolate on Workers (`durableGatewaySessions`). Default: this
   * process's memory on Node and Deno; none on Workers (the list stays fixed).
   */
  readonly sessions?: GatewaySessions | 'memory';
  /**
   * Connect to the upstreams for each request that needs them and close them after its answer,
   * instead of holding one gateway for the app's life: on Workers an upstream connection cannot
   * outlive the request that opened it. Tool lists are read again each time; what the ranking
   * derives from them (the corpus vectors) is reused by text. `createWorker` sets it.
   */
  readonly perRequest?: boolean;
}

/** What the route takes from the app. */
export interface McpRouteContext extends McpRouteOptions {
  /** The configuration text (`LOOPCTL_MCP_SERVERS`); no servers when absent. */
  readonly servers: string | undefined;
  /** The hybrid, when the app has an embedder; BM25 ranks otherwise. */
  readonly selector: (() => Promise<AsyncToolSelector>) | undefined;
  readonly maxBodyBytes: number;
  readonly budget: UploadBudget;
  readonly onError: (error: unknown) => void;
}

/**
 * The `/mcp` route, to mount behind the app's token gate: POST (JSON-RPC), GET (405: no
 * standing stream), DELETE (ends a session).
 *
 * @example
 * app.use('/mcp', bearer(token))
 * app.route('/', mcpRoutes({ servers: env.LOOPCTL_MCP_SERVERS, selector: undefined, maxBodyBytes, budget, onError }))
 */
export function mcpRoutes(context: McpRouteContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let handler: Promise<Built> | undefined;
  const handle = async (c: Context<AppEnv>): Promise<Response> => {
    const first = handler === undefined;
    handler ??= buildHandler(context).catch((error: unknown) => {
      handler = undefined;
      throw error;
    });
    let fetch: GatewayFetch;
    try {
      const built = await handler;
      fetch = built.fetch;
      // On Workers a request's connections close with it: the servers' start outlives the
      // request that began it only through waitUntil.
      if (first) keepAlive(c, built.started);
    } catch (error) {
      context.onError(error);
      return rpcError(503, -32603, `the MCP gateway cannot start: ${errorMessage(error)}`);
    }
    if (c.req.method !== 'POST') return fetch(c.req.raw);
    let body: unknown;
    try {
      const bytes = await readBody(c.req.raw, { maxBytes: context.maxBodyBytes, budget: context.budget });
      body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (error) {
      if (!(error instanceof BodyReadError)) return rpcError(400, -32700, 'Parse error: the body is not JSON');
      if (error.reason === 'too_large') return rpcError(413, -32000, error.message);
      if (error.reason === 'busy') return rpcError(503, -32000, error.message, { 'retry-after': '1' });
      return rpcError(400, -32700, `Parse error: ${error.message}`);
    }
    return fetch(c.req.raw, body);
  };
  app.on(['GET', 'POST', 'DELETE'], MCP_PATH, handle);
  app.all(MCP_PATH, () =>
    rpcError(405, -32000, `${MCP_PATH} accepts POST, GET and DELETE`, { allow: 'POST, GET, DELETE' }),
  );
  return app;
}

/** The handler, and the servers' start it set off. */
interface Built {
  readonly fetch: GatewayFetch;
  readonly started: Promise<void>;
}

/** `waitUntil` where the runtime has one (Workers); elsewhere the process outlives the request. */
function keepAlive(c: Context<AppEnv>, work: Promise<void>): void {
  let context: { waitUntil(promise: Promise<unknown>): void } | undefined;
  try {
    context = c.executionCtx;
  } catch {
    // Node and Deno: no execution context.
  }
  context?.waitUntil(work);
}

/** The gateway, its servers starting, and the sessionless handler over it. */
async function buildHandler(context: McpRouteContext): Promise<Built> {
  const [{ McpGateway }, { parseGatewayConfig }, { gatewayStateless }, { memoryGatewaySessions }, { waitAtMost }] =
    await Promise.all([
      import('../adapters/mcp/gateway.js'),
      import('../adapters/mcp/gateway-config.js'),
      import('../adapters/mcp/gateway-stateless.js'),
      import('../adapters/mcp/gateway-sessions.js'),
      import('../adapters/mcp/wait-at-most.js'),
    ]);
  const vars = Object.fromEntries(
    Object.entries(context.vars ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  const text = context.servers?.trim();
  const config = text ? parseGatewayConfig(text, 'LOOPCTL_MCP_SERVERS', vars) : { servers: [], core: [] };
  const servers = context.remoteOnly ? config.servers.map(remoteOnly) : config.servers;
  const gatewayOf = (only: readonly GatewayServer[]) =>
    new McpGateway({
      registry: new ToolRegistry(),
      servers: only,
      core: config.core,
      startWaitMs: START_WAIT_MS,
      ...(config.maxResultChars ? { maxResultChars: config.maxResultChars } : {}),
      ...(context.selector ? { selector: context.selector, selectorName: 'hybrid' } : {}),
      clientInfo: { name: 'loopctl-gateway', version: '0.1.0' },
      onError: (error) => context.onError(error),
    });
  const sessions = context.sessions === 'memory' ? memoryGatewaySessions() : context.sessions;
  const options = {
    exposeFound: config.exposeFound ?? false,
    maxBodyBytes: context.maxBodyBytes,
    owner: sessionOwner,
    ...(sessions ? { sessions } : {}),
  };
  if (!context.perRequest) {
    const gateway = gatewayOf(servers);
    return { fetch: await gatewayStateless(gateway, options), started: gateway.start() };
  }
  const fetch = await gatewayStateless(async (body) => {
    const gateway = gatewayOf(serversFor(body, servers));
    // Only a list or a call reads the upstreams; initialize and notifications never wait on them.
    if (readsUpstreams(body)) await waitAtMost(gateway.start(), START_WAIT_MS);
    return { gateway, release: () => gateway.close() };
  }, options);
  return { fetch, started: Promise.resolve() };
}

/**
 * A session's owner: a digest of the credential the request presents (never the credential), so
 * a session id answers only the caller that opened it.
 */
function sessionOwner(request: Request): Promise<string> {
  return digestHex(['loopctl/mcp-session-owner/v1', credentialOf(request.headers)]);
}

/** How long a request waits for upstreams still starting before answering without them. */
const START_WAIT_MS = 20_000;

/** The JSON-RPC messages of a body (one or a batch). */
function messagesOf(body: unknown): { method?: unknown; params?: unknown }[] {
  return (Array.isArray(body) ? body : [body]).filter(
    (message): message is { method?: unknown; params?: unknown } => typeof message === 'object' && message !== null,
  );
}

function readsUpstreams(body: unknown): boolean {
  return messagesOf(body).some((message) => message.method === 'tools/list' || message.method === 'tools/call');
}

/**
 * The servers one request needs: for a single call of a named tool, only the server whose prefix
 * begins its name (`notes__read_file`: `notes`); for anything else, all of them.
 */
function serversFor(body: unknown, servers: readonly GatewayServer[]): readonly GatewayServer[] {
  const messages = messagesOf(body);
  if (messages.length !== 1 || messages[0]?.method !== 'tools/call') return servers;
  const params = (messages[0].params ?? {}) as { name?: unknown; arguments?: { name?: unknown } };
  const target = params.name === 'call_tool' ? params.arguments?.name : params.name;
  if (typeof target !== 'string' || !target.includes('__')) return servers;
  const prefix = target.slice(0, target.indexOf('__'));
  const owner = servers.filter((server) => server.config?.prefix === prefix);
  return owner.length === 1 ? owner : servers;
}

type GatewayServer = import('../adapters/mcp/gateway-config.js').GatewayServer;

/** A `command` entry, kept as a server that cannot run here (named in every search's `unavailable`). */
function remoteOnly(server: GatewayServer): GatewayServer {
  if (!server.config || !('command' in server.config)) return server;
  return {
    name: server.name,
    error:
      'stdio servers (a "command") cannot run on Cloudflare Workers: give this server\'s Streamable HTTP "url", or serve it with npx loopctl mcp',
  };
}
