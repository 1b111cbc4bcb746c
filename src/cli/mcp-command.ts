import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../describe-error.js';
import { DEFAULT_HTTP_PORT, isLoopback, serveHttp } from './mcp-http.js';
import { serveGatewayStdio } from './mcp-stdio.js';
import { DEFAULT_MODEL_DIR, findModelDir } from './model-command.js';
import { UsageError } from './usage-error.js';

const MCP_USAGE = `loopctl mcp [--config FILE] [--selector hybrid|bm25] [--model-path DIR] [--vectors FILE] [--expose-found] [--max-result-chars N] [--http [--port N] [--host ADDR]]
loopctl mcp --build-vectors FILE [--config FILE] [--model-path DIR]

Serves an MCP gateway over stdio: the MCP servers in FILE (and LOOPCTL_MCP_SERVERS) behind two
tools, search_tools (query → the best tools with their input schemas) and call_tool (name,
arguments → that tool's result), so an agent sees two tools instead of hundreds. Point an IDE
agent at it as a stdio server: command "npx", args ["-y", "loopctl", "mcp", "--config", FILE].

  --config FILE           Claude Desktop / Claude Code / Cursor "mcpServers" JSON, or VS Code's
                          "servers" (.vscode/mcp.json; comments allowed); \${VAR} is read from the
                          environment. A "loopctl" block may add {"core": [tool names listed as
                          themselves], "exposeFound": true, "maxResultChars": N, "vectors": FILE}.
  --selector NAME         hybrid (default when the offline model is found) or bm25
  --model-path DIR        the USE-lite model folder (LOOPCTL_MODEL_PATH; default ./${DEFAULT_MODEL_DIR},
                          else the package's own; npx loopctl model builds it). Without it, BM25.
  --vectors FILE          the servers' tool vectors, built by --build-vectors ("vectors" in the
                          config, read relative to it): the first search embeds only the query
  --build-vectors FILE    start the servers, embed every tool they list into FILE, and exit
  --expose-found          found tools join tools/list for the session (clients that re-list
                          on notifications/tools/list_changed)
  --max-result-chars N    longest result passed on, in characters (default 100000)
  --http                  serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio
  --port N                with --http: default ${DEFAULT_HTTP_PORT} (0 picks a free port)
  --host ADDR             with --http: default 127.0.0.1; beyond the loopback LOOPCTL_TOKEN is
                          required (clients send Authorization: Bearer TOKEN)

LOOPCTL_MCP_SERVERS takes the same JSON (or loopctl/mcp's array). Tool names are the server's
key and its tool name joined by __, made valid for every client (a-z, 0-9, _ and -, at most 64).
A server that fails, dies or hangs is named in search results and errors; the others keep
working. Logs go to stderr; stdout carries only MCP.`;

/** What {@link mcpCommand} reads besides its arguments. */
export interface McpCommandOptions {
  /** The variables. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Where `./models/use-lite` and relative paths are looked for. Default the working directory. */
  cwd?: string;
  /** Log lines (never stdout: it carries MCP). Default stderr. */
  log?: (line: string) => void;
}

interface McpFlags {
  config?: string;
  selector?: string;
  'model-path'?: string;
  vectors?: string;
  'build-vectors'?: string;
  'expose-found'?: boolean;
  'max-result-chars'?: string;
  http?: boolean;
  port?: string;
  host?: string;
  help?: boolean;
}

/**
 * `loopctl mcp`: the MCP gateway over stdio (or Streamable HTTP with `--http`). Resolves with
 * exit code 0 when the client closes stdin (or on SIGINT/SIGTERM), after every upstream server
 * has been closed.
 *
 * @example
 * // an IDE runs: npx loopctl mcp --config ~/.cursor/mcp.json
 * await mcpCommand(['--config', 'mcp.json'], console.log)
 */
export async function mcpCommand(
  args: readonly string[],
  out: (line: string) => void,
  options: McpCommandOptions = {},
): Promise<number> {
  const flags = parseFlags(args);
  if (flags.help) {
    out(MCP_USAGE);
    return 0;
  }
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const log = options.log ?? ((line: string) => process.stderr.write(`loopctl mcp: ${line}\n`));
  const config = await readConfig(flags, env, cwd);
  const http = flags.http ? httpAddress(flags, env) : undefined;
  const building = flags['build-vectors'];
  // stdout is the protocol's: a library's console.log there would corrupt it.
  if (!http && building === undefined)
    for (const method of ['log', 'info', 'debug'] as const) console[method] = (...parts) => console.error(...parts);

  const [{ McpGateway }, { ToolRegistry }] = await importGateway();
  const vectors = vectorsPath(flags, config, cwd);
  const selector = pickSelector(flags, env, cwd, log, building === undefined ? vectors : undefined);
  const exposeFound = flags['expose-found'] ?? config.exposeFound ?? false;
  const gateway = new McpGateway({
    registry: new ToolRegistry(),
    servers: config.servers,
    core: config.core,
    maxResultChars: maxResultChars(flags['max-result-chars']) ?? config.maxResultChars,
    clientInfo: { name: 'loopctl-gateway', version: '0.1.0' },
    onError: (error) => log(error.message),
    ...selector,
  });
  if (building !== undefined) {
    if (!selector.embedder) throw new UsageError('--build-vectors needs the offline model (--model-path DIR)');
    return (await import('./mcp-vectors.js')).buildGatewayVectors(
      gateway,
      selector.embedder,
      resolve(cwd, building),
      out,
    );
  }
  const started = performance.now();
  void gateway.start().then(() => {
    log(
      `serving ${gateway.status().map(describeStatus).join(', ') || 'no servers'}; search ranked by ${selector.selectorName ?? 'bm25'}`,
    );
  });
  // Warm the selector (model, vectors file, corpus index) while the servers start, so the
  // agent's first search is quick; the log line says whether the vectors file covered them.
  void gateway.warm().then(async () => {
    log(warmLine(gateway, selector, vectors, performance.now() - started));
    // Whether the file's tool links and lexical index served this list (after the ready line,
    // so checking does not delay it).
    if (selector.stateFits) log(await selector.stateFits(gateway.tools()).catch(errorMessage));
  });
  if (http) return serveHttp(gateway, { ...http, exposeFound, token: env.LOOPCTL_TOKEN?.trim() || undefined }, log);
  await serveGatewayStdio(gateway, { exposeFound, log });
  await gateway.close();
  return 0;
}

/** What the warm-up did, for the log: how long it took and what it had to embed. */
function warmLine(
  gateway: { registry: { size: number } },
  selector: Picked,
  vectors: string | undefined,
  ms: number,
): string {
  const embedded = selector.corpusEmbeds?.() ?? 0;
  const source = vectors
    ? embedded === 0
      ? `; every tool's vector came from ${vectors}`
      : `; ${embedded} tool texts were not in ${vectors} and were embedded (rebuild it with --build-vectors)`
    : embedded > 0
      ? `; embedded ${embedded} tool texts (--build-vectors FILE, then --vectors FILE, skips this)`
      : '';
  return `search index ready: ${gateway.registry.size} tools, ${Math.round(ms)} ms after start${source}`;
}

function parseFlags(args: readonly string[]): McpFlags {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: false,
      options: {
        config: { type: 'string' },
        selector: { type: 'string' },
        'model-path': { type: 'string' },
        vectors: { type: 'string' },
        'build-vectors': { type: 'string' },
        'expose-found': { type: 'boolean' },
        'max-result-chars': { type: 'string' },
        http: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    throw new UsageError(`${errorMessage(error)}\n\n${MCP_USAGE}`);
  }
}

/** `--http`'s address: 127.0.0.1 by default; beyond the loopback only with a token. */
function httpAddress(flags: McpFlags, env: Record<string, string | undefined>): { host: string; port: number } {
  const port = flags.port ?? String(DEFAULT_HTTP_PORT);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
    throw new UsageError(`--port must be a port number (0 to 65535; 0 picks a free one), got "${port}"`);
  const host = flags.host ?? '127.0.0.1';
  if (!isLoopback(host) && !env.LOOPCTL_TOKEN?.trim())
    throw new UsageError(
      `--host ${host} listens beyond the loopback: set LOOPCTL_TOKEN (clients send it as Authorization: Bearer), since the gateway's tools read files and run commands`,
    );
  return { host, port: Number(port) };
}

/** The vectors file: the flag (relative to the working directory), else the config's (relative to it). */
function vectorsPath(flags: McpFlags, config: GatewayConfig, cwd: string): string | undefined {
  const path =
    flags.vectors !== undefined
      ? resolve(cwd, flags.vectors)
      : config.vectors !== undefined && flags.config !== undefined
        ? resolve(dirname(resolve(cwd, flags.config)), config.vectors)
        : config.vectors;
  if (path !== undefined && flags['build-vectors'] === undefined && !existsSync(path))
    throw new UsageError(`the vectors file ${path} does not exist: build it with loopctl mcp --build-vectors ${path}`);
  return path;
}

function maxResultChars(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`--max-result-chars must be a positive integer, got "${value}"`);
  return Number(value);
}

type GatewayConfig = import('../adapters/mcp/gateway-config.js').GatewayConfig;

/** The file's servers, then LOOPCTL_MCP_SERVERS' (an array, or the same JSON as a file). */
async function readConfig(
  flags: McpFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<GatewayConfig> {
  const { parseGatewayConfig } = await import('../adapters/mcp/gateway-config.js');
  const parts: GatewayConfig[] = [];
  if (flags.config !== undefined) {
    let text: string;
    try {
      text = readFileSync(resolve(cwd, flags.config), 'utf8');
    } catch (error) {
      throw new UsageError(`--config ${flags.config} cannot be read (${errorMessage(error)})`);
    }
    parts.push(parseGatewayConfig(text, flags.config, env));
  }
  const variable = env.LOOPCTL_MCP_SERVERS;
  if (variable !== undefined && variable.trim() !== '')
    parts.push(parseGatewayConfig(variable, 'LOOPCTL_MCP_SERVERS', env));
  if (parts.length === 0)
    throw new UsageError(`loopctl mcp needs servers: --config FILE or LOOPCTL_MCP_SERVERS\n\n${MCP_USAGE}`);
  const names = new Set<string>();
  const servers = parts
    .flatMap((part) => part.servers)
    .filter((server) => !names.has(server.name) && names.add(server.name));
  const [first] = parts as [GatewayConfig];
  return { ...first, servers, core: parts.flatMap((part) => part.core) };
}

type AsyncToolSelector = import('../select/selector.js').AsyncToolSelector;

/** The gateway's selector, its model (for --build-vectors) and what its corpus has embedded. */
interface Picked {
  selector?: () => Promise<AsyncToolSelector>;
  selectorName?: string;
  embedder?: () => Promise<import('../embed/embedder.js').Embedder>;
  /** Tool texts the corpus index embedded (0 when the vectors file had them all). */
  corpusEmbeds?: () => number;
  /** Whether the vectors file's derived state (tool links, lexical index) fits this tool list. */
  stateFits?: (tools: readonly import('../registry/schema.js').ToolSchema[]) => Promise<string>;
}

/**
 * The hybrid over the offline model when the folder is found (`--model-path`,
 * LOOPCTL_MODEL_PATH, ./models/use-lite, the package's), else BM25, as `loopctl serve` picks;
 * seeded from `vectors` (a file `--build-vectors` wrote) when given.
 */
function pickSelector(
  flags: McpFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  log: (line: string) => void,
  vectors: string | undefined,
): Picked {
  const name = flags.selector ?? 'hybrid';
  if (name !== 'hybrid' && name !== 'bm25') throw new UsageError(`--selector must be hybrid or bm25, got "${name}"`);
  if (name === 'bm25') return {};
  const flag = flags['model-path'] ?? (env.LOOPCTL_MODEL_PATH?.trim() || undefined);
  let modelDir: string;
  try {
    modelDir = findModelDir(flag, cwd);
  } catch (error) {
    if (flag !== undefined || flags['build-vectors'] !== undefined) throw new UsageError(errorMessage(error));
    log(`no offline model (./${DEFAULT_MODEL_DIR}; npx loopctl model builds it): searching with BM25`);
    return {};
  }
  const embedder = async () => (await import('./selectors.js')).defaultEmbedder(modelDir);
  let built: AsyncToolSelector | undefined;
  const selector = async () => {
    const { namedSelectors } = await import('../select/named-selectors.js');
    // Read when the index first needs it; a file that does not match the model is refused with
    // a warning and the tools are embedded as if there were none.
    const embeddingOptions = vectors ? { vectors: () => new Uint8Array(readFileSync(vectors)) } : undefined;
    built = await namedSelectors({ embedder, ...(embeddingOptions ? { embeddingOptions } : {}) }).get('hybrid', 8);
    return built;
  };
  return {
    selector,
    selectorName: 'hybrid',
    embedder,
    corpusEmbeds: () => (built ? countEmbeds(built) : 0),
    ...(vectors ? { stateFits: async (tools) => describeState(vectors, tools, built) } : {}),
  };
}

/**
 * Whether the vectors file at `path` carries the hybrid's derived state for exactly `tools`, in
 * words for the log: the hybrid's own check, read from the file it loaded (so this costs nothing
 * the first search would wait on).
 */
async function describeState(
  path: string,
  tools: readonly import('../registry/schema.js').ToolSchema[],
  selector: AsyncToolSelector | undefined,
): Promise<string> {
  const dense = (selector as { dense?: import('../select/embedding-selector.js').EmbeddingSelector } | undefined)
    ?.dense;
  const file = await dense?.vectorsFile();
  const { HYBRID_STATE_TAG, readHybridStateOnce } = await import('../select/hybrid-state.js');
  const section = file?.sections.get(HYBRID_STATE_TAG);
  if (!dense || !section)
    return `${path} carries no derived state: the hybrid derived its tool links and lexical index`;
  const state = await readHybridStateOnce(section, tools, dense.embedder);
  return state.ok
    ? `the hybrid's tool links and lexical index came from ${path} too`
    : `the hybrid derived its tool links and lexical index: ${path}'s state was not used (${state.reason}; rebuild it with --build-vectors)`;
}

/** The hybrid's corpus stats, read without importing the selector classes into this module. */
function countEmbeds(selector: AsyncToolSelector): number {
  const dense = (selector as { dense?: { stats?: { corpusEmbeds?: number } } }).dense;
  return dense?.stats?.corpusEmbeds ?? 0;
}

function describeStatus(status: { server: string; tools?: number; error?: string }): string {
  return status.tools !== undefined
    ? `${status.server} (${status.tools} tools)`
    : `${status.server} (down: ${status.error})`;
}

/** The gateway and the SDK's stdio server transport; a missing SDK is named with its install command. */
async function importGateway() {
  const gateway = await import('../adapters/mcp/gateway.js');
  try {
    // The 1.x SDK mounts the upstreams and serves the 2025 era: required, unlike SDK v2.
    await import('@modelcontextprotocol/sdk/server/stdio.js');
    return [gateway, await importCore()] as const;
  } catch (error) {
    throw new Error(
      `loopctl mcp needs the optional peer dependency @modelcontextprotocol/sdk: npm install @modelcontextprotocol/sdk (${errorMessage(error)})`,
      { cause: error },
    );
  }
}

/**
 * The registry class through the package's own root entry (a self-reference Node resolves
 * through package.json), as `serve` does: a static edge from the CLI into the core's modules
 * makes the bundler split `import 'loopctl'` into more chunks, over its size budget.
 */
function importCore(): Promise<typeof import('../index.js')> {
  // Destructured, not a plain constant: the bundler folds a constant back into a literal.
  const [core] = ['loopctl'];
  return import(core);
}
