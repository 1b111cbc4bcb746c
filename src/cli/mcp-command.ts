import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../describe-error.js';
import { DEFAULT_MODEL_DIR, findModelDir } from './model-command.js';
import { UsageError } from './usage-error.js';

const MCP_USAGE = `loopctl mcp [--config FILE] [--selector hybrid|bm25] [--model-path DIR] [--expose-found] [--max-result-chars N]

Serves an MCP gateway over stdio: the MCP servers in FILE (and LOOPCTL_MCP_SERVERS) behind two
tools, search_tools (query → the best tools with their input schemas) and call_tool (name,
arguments → that tool's result), so an agent sees two tools instead of hundreds. Point an IDE
agent at it as a stdio server: command "npx", args ["-y", "loopctl", "mcp", "--config", FILE].

  --config FILE           Claude Desktop / Claude Code / Cursor "mcpServers" JSON, or VS Code's
                          "servers" (.vscode/mcp.json; comments allowed); \${VAR} is read from the
                          environment. A "loopctl" block may add {"core": [tool names listed as
                          themselves], "exposeFound": true, "maxResultChars": N}.
  --selector NAME         hybrid (default when the offline model is found) or bm25
  --model-path DIR        the USE-lite model folder (LOOPCTL_MODEL_PATH; default ./${DEFAULT_MODEL_DIR},
                          else the package's own; npx loopctl model builds it). Without it, BM25.
  --expose-found          found tools join tools/list for the session (clients that re-list
                          on notifications/tools/list_changed)
  --max-result-chars N    longest result passed on, in characters (default 100000)

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
  'expose-found'?: boolean;
  'max-result-chars'?: string;
  help?: boolean;
}

/**
 * `loopctl mcp`: the MCP gateway over stdio. Resolves with exit code 0 when the client closes
 * stdin (or on SIGINT/SIGTERM), after every upstream server has been closed.
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
  // stdout is the protocol's: a library's console.log there would corrupt it.
  for (const method of ['log', 'info', 'debug'] as const) console[method] = (...parts) => console.error(...parts);

  const [{ McpGateway }, { gatewayServer }, { StdioServerTransport }, { ToolRegistry }] = await importGateway();
  const selector = pickSelector(flags, env, cwd, log);
  const gateway = new McpGateway({
    registry: new ToolRegistry(),
    servers: config.servers,
    core: config.core,
    exposeFound: flags['expose-found'] ?? config.exposeFound ?? false,
    maxResultChars: maxResultChars(flags['max-result-chars']) ?? config.maxResultChars,
    clientInfo: { name: 'loopctl-gateway', version: '0.1.0' },
    onError: (error) => log(error.message),
    ...selector,
  });
  const server = await gatewayServer(gateway, { exposeFound: flags['expose-found'] ?? config.exposeFound ?? false });
  const closed = new Promise<void>((done) => {
    server.onclose = () => done();
    process.stdin.once('end', () => done());
    process.once('SIGINT', () => done());
    process.once('SIGTERM', () => done());
  });
  await server.connect(new StdioServerTransport());
  void gateway.start().then(() => {
    log(
      `serving ${gateway.status().map(describeStatus).join(', ') || 'no servers'}; search ranked by ${selector.selectorName ?? 'bm25'}`,
    );
    // Warm the selector (model, corpus vectors) so the agent's first search is quick.
    if (selector.selector) void gateway.warm();
  });
  await closed;
  await server.close().catch(() => undefined);
  await gateway.close();
  return 0;
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
        'expose-found': { type: 'boolean' },
        'max-result-chars': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    throw new UsageError(`${errorMessage(error)}\n\n${MCP_USAGE}`);
  }
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

/**
 * The hybrid over the offline model when the folder is found (`--model-path`,
 * LOOPCTL_MODEL_PATH, ./models/use-lite, the package's), else BM25, as `loopctl serve` picks.
 */
function pickSelector(
  flags: McpFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  log: (line: string) => void,
): { selector?: () => Promise<import('../select/selector.js').AsyncToolSelector>; selectorName?: string } {
  const name = flags.selector ?? 'hybrid';
  if (name !== 'hybrid' && name !== 'bm25') throw new UsageError(`--selector must be hybrid or bm25, got "${name}"`);
  if (name === 'bm25') return {};
  const flag = flags['model-path'] ?? (env.LOOPCTL_MODEL_PATH?.trim() || undefined);
  let modelDir: string;
  try {
    modelDir = findModelDir(flag, cwd);
  } catch (error) {
    if (flag !== undefined) throw new UsageError(errorMessage(error));
    log(`no offline model (./${DEFAULT_MODEL_DIR}; npx loopctl model builds it): searching with BM25`);
    return {};
  }
  const selector = async () => {
    const [{ namedSelectors }, { defaultEmbedder }] = await Promise.all([
      import('../select/named-selectors.js'),
      import('./selectors.js'),
    ]);
    return namedSelectors({ embedder: () => defaultEmbedder(modelDir) }).get('hybrid', 8);
  };
  return { selector, selectorName: 'hybrid' };
}

function describeStatus(status: { server: string; tools?: number; error?: string }): string {
  return status.tools !== undefined
    ? `${status.server} (${status.tools} tools)`
    : `${status.server} (down: ${status.error})`;
}

/** The gateway and the SDK's stdio server transport; a missing SDK is named with its install command. */
async function importGateway() {
  const [gateway, server] = await Promise.all([
    import('../adapters/mcp/gateway.js'),
    import('../adapters/mcp/gateway-server.js'),
  ]);
  try {
    return [gateway, server, await import('@modelcontextprotocol/sdk/server/stdio.js'), await importCore()] as const;
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
