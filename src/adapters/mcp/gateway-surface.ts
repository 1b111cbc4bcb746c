/**
 * What the gateway serves as an MCP server, defined once for every SDK that serves it: the
 * fixed `tools/list` (a search tool, a call tool and the configured core tools, plus what a
 * session's searches found with `exposeFound`) and the answer to each `tools/call`. The 2025-era
 * server (`gateway-server.ts`, SDK 1.x) and the 2026-07-28 one (`gateway-server-modern.ts`, SDK
 * v2) both register these functions, so the two eras cannot drift apart.
 */
import { errorMessage } from '../../describe-error.js';
import type { ToolSchema } from '../../registry/schema.js';
import { DEFAULT_SEARCH_LIMIT, type McpGateway } from './gateway.js';

/**
 * The search tool's name.
 *
 * @example
 * await client.callTool({ name: SEARCH_TOOL, arguments: { query: 'read a file', limit: 5 } })
 */
export const SEARCH_TOOL = 'search_tools';
/**
 * The call tool's name.
 *
 * @example
 * await client.callTool({ name: CALL_TOOL, arguments: { name: 'filesystem__read_text_file', arguments: { path } } })
 */
export const CALL_TOOL = 'call_tool';

/** Options for {@link gatewayServer}. */
export interface GatewayServerOptions {
  /** How the gateway introduces itself. Default `{ name: 'loopctl-gateway', version: '0.1.0' }`. */
  readonly serverInfo?: { name: string; version: string };
  /**
   * Whether the tools a search finds join this session's `tools/list` (declares
   * `tools.listChanged` and sends it when they do), for clients that re-list on it.
   */
  readonly exposeFound?: boolean;
  /**
   * Tools this session's earlier searches found, restored (a server per request, as on Workers:
   * the session lives in a store, not in this object). Only with `exposeFound`.
   */
  readonly found?: readonly string[];
  /**
   * Told the session's whole found list each time a search adds to it, so a store can keep it
   * for the session's next request. Awaited before the search answers.
   */
  readonly onFound?: (names: readonly string[]) => void | Promise<void>;
}

/**
 * A tool as `tools/list` carries it (the MCP shape, written here so loopctl's declarations name
 * no SDK type: a project type-checks them without either SDK installed).
 */
export interface GatewayMcpTool {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations?: Record<string, unknown>;
}

/** A `tools/call` result as MCP carries it: content parts, and whether the call failed. */
export interface GatewayCallResult {
  content: { type: string; [key: string]: unknown }[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * One session's view of the gateway, with nothing of any SDK in it: what to introduce the server
 * as, and the two handlers an SDK server registers.
 */
export interface GatewaySurface {
  readonly serverInfo: { name: string; version: string };
  readonly capabilities: { tools: { listChanged: boolean } };
  readonly instructions: string;
  /** The `tools/list` result. */
  listTools(): Promise<{ tools: GatewayMcpTool[] }>;
  /**
   * The `tools/call` result for `name`: never throws (a failure is an `isError` result).
   * `notify` sends `notifications/tools/list_changed` on the call's own response.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    signal: AbortSignal,
    notify: () => Promise<void>,
  ): Promise<GatewayCallResult>;
}

/**
 * The surface one session of `gateway` is served: one per session (one client), over a shared
 * gateway; each keeps its own found tools.
 *
 * @example
 * const surface = gatewaySurface(gateway, { exposeFound: false })
 * server.setRequestHandler(ListToolsRequestSchema, () => surface.listTools())
 */
export function gatewaySurface(gateway: McpGateway, options: GatewayServerOptions = {}): GatewaySurface {
  const exposeFound = options.exposeFound ?? false;
  const fixed = fixedTools(gateway);
  const found = new Set<string>(exposeFound ? (options.found ?? []).slice(0, MAX_FOUND) : []);
  const expose = exposeFound
    ? async (names: readonly string[], notify: () => Promise<void>) => {
        const before = found.size;
        for (const name of names) if (found.size < MAX_FOUND && !gateway.isCore(name)) found.add(name);
        if (found.size === before) return;
        // A list the store could not keep would vanish on the next request: say nothing then,
        // and the agent goes on through the call tool.
        const kept = await Promise.resolve(options.onFound?.([...found])).then(
          () => true,
          () => false,
        );
        if (kept) await notify().catch(() => undefined);
      }
    : undefined;
  const session: Session = { gateway, found, expose };
  return {
    serverInfo: options.serverInfo ?? { name: 'loopctl-gateway', version: '0.1.0' },
    capabilities: { tools: { listChanged: exposeFound } },
    instructions: `Tools from several MCP servers are behind ${SEARCH_TOOL}: search with what you need done, then run a found tool with ${CALL_TOOL}.`,
    listTools: async () => {
      const core = await gateway.coreTools();
      const shown = [...found].flatMap((name) => gateway.registry.get(name) ?? []);
      return { tools: [...fixed, ...core.map(asMcpTool), ...shown.map(asMcpTool)] };
    },
    callTool: (name, args, signal, notify) => answer(session, name, args, signal, notify),
  };
}

/** At most this many found tools join a session's list, so it stays small. */
const MAX_FOUND = 64;

/** What one session has been shown beyond the fixed list: the tools its searches found. */
interface Session {
  readonly gateway: McpGateway;
  readonly found: Set<string>;
  /**
   * Adds found tools to the list and says so, through `notify` (on the search's own response,
   * so a server without a standing stream still delivers it); undefined when the list is fixed.
   */
  readonly expose: ((names: readonly string[], notify: () => Promise<void>) => Promise<void>) | undefined;
}

/** One `tools/call`, as a result: a thrown error becomes an `isError` result the agent reads. */
async function answer(
  session: Session,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: AbortSignal,
  notify: () => Promise<void>,
): Promise<GatewayCallResult> {
  const { gateway } = session;
  try {
    if (name === SEARCH_TOOL) return await search(session, args ?? {}, signal, notify);
    if (name === CALL_TOOL) {
      const target = args?.name;
      if (typeof target !== 'string' || target === '')
        return failure(`${CALL_TOOL} needs "name": a tool name as ${SEARCH_TOOL} returned it, and "arguments"`);
      const inner = args?.arguments ?? {};
      if (typeof inner !== 'object' || inner === null || Array.isArray(inner))
        return failure(`${CALL_TOOL}: "arguments" must be an object of the tool's arguments`);
      return (await gateway.call(target, inner, signal)) as GatewayCallResult;
    }
    if (gateway.isCore(name) || session.found.has(name))
      return (await gateway.call(name, args ?? {}, signal)) as GatewayCallResult;
    return failure(
      `unknown tool "${name}": this gateway lists ${SEARCH_TOOL} and ${CALL_TOOL}; search, then call what it finds with ${CALL_TOOL}`,
    );
  } catch (error) {
    return failure(errorMessage(error));
  }
}

async function search(
  session: Session,
  args: Record<string, unknown>,
  signal: AbortSignal,
  notify: () => Promise<void>,
): Promise<GatewayCallResult> {
  const { query, limit } = args;
  if (typeof query !== 'string' || query.trim() === '')
    return failure(`${SEARCH_TOOL} needs a non-empty "query", like {"query": "read a file"}`);
  if (limit !== undefined && !(typeof limit === 'number' && Number.isInteger(limit) && limit > 0))
    return failure(`${SEARCH_TOOL}: "limit" must be a positive integer`);
  const found = await session.gateway.search(query, limit ?? DEFAULT_SEARCH_LIMIT, signal);
  await session.expose?.(
    found.tools.map((tool) => tool.name),
    notify,
  );
  const structured = {
    ...found,
    next:
      found.tools.length > 0
        ? `Call one with ${CALL_TOOL}: {"name": "${found.tools[0]?.name}", "arguments": {…}} (its inputSchema says which)`
        : 'Nothing matched: search again in other words.',
  };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function failure(text: string): GatewayCallResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The search and call tools, described once: the list stays the same for the session. */
function fixedTools(gateway: McpGateway): GatewayMcpTool[] {
  const servers = gateway.status().map((s) => s.server);
  const from = servers.length > 0 ? ` (servers: ${servers.join(', ')})` : '';
  return [
    {
      name: SEARCH_TOOL,
      description: `Search the tools of the MCP servers behind this gateway${from} by what you need done. Returns the best matches with their descriptions and input schemas; run one with ${CALL_TOOL}. Use it whenever no tool you have fits the task.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What the tool should do, in a few words or the request itself.' },
          limit: { type: 'integer', minimum: 1, maximum: 20, description: 'How many tools to return. Default 5.' },
        },
        required: ['query'],
      },
      annotations: { title: 'Search tools', readOnlyHint: true, openWorldHint: false },
    },
    {
      name: CALL_TOOL,
      description: `Run a tool that ${SEARCH_TOOL} found, by its exact name, with arguments matching its input schema. Returns the tool's own result.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: `The tool's name as ${SEARCH_TOOL} returned it.` },
          arguments: { type: 'object', description: "The tool's arguments, as its inputSchema describes." },
        },
        required: ['name'],
      },
      annotations: { title: 'Call a found tool', openWorldHint: true },
    },
  ];
}

function asMcpTool(schema: ToolSchema): GatewayMcpTool {
  return {
    name: schema.name,
    description: schema.description,
    inputSchema: (schema.parameters ?? { type: 'object', properties: {} }) as GatewayMcpTool['inputSchema'],
  };
}
