import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { errorMessage } from '../describe-error.js';
import type { RunningServer } from '../hono/node.js';
import { PROTOCOLS } from '../hono/proxy/protocols/index.js';
import { PROXY_DEFAULTS } from '../hono/proxy/proxy-env.js';
import type { ProxyUpstream } from '../hono/proxy/proxy-protocol.js';
import { proxyUpstreams } from '../hono/proxy/proxy-upstreams.js';
import type { Setting } from '../hono/setting.js';
import { ENTRY_SETTINGS, MODEL_DEFAULTS, PROXY_SETTINGS } from '../hono/settings.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { EmbedderSource } from '../select/named-selectors.js';
import { DEFAULT_MODEL_DIR } from './model-command.js';
import { untilStopped } from './until-stopped.js';
import { UsageError } from './usage-error.js';

const SERVE_USAGE = `loopctl serve [--port N] [--host ADDR] [--openai-base-url URL] [--anthropic-base-url URL] [--model-path DIR]

Serves the loopctl API and the selecting proxy on Node (needs hono and @hono/node-server:
npm install hono @hono/node-server). Point a client's baseURL at it: OpenAI Chat Completions and
Responses (POST /v1/chat/completions, /v1/responses) and Anthropic Messages (POST /v1/messages)
go upstream with each request's tools narrowed to the few its prompt needs. Ctrl-C stops it.

  --port N                  default PORT, else ${ENTRY_SETTINGS.port.default} (0 picks a free port)
  --host ADDR               default HOST, else ${ENTRY_SETTINGS.host.default} (loopback only)
  --openai-base-url URL     the OpenAI-compatible upstream, with /v1 (PROXY_OPENAI_BASE_URL;
                            default MODEL_BASE_URL, else a local Ollama at ${MODEL_DEFAULTS.openai.baseURL})
  --anthropic-base-url URL  the Anthropic upstream's origin (PROXY_ANTHROPIC_BASE_URL)
  --model-path DIR          the offline USE-lite model folder (LOOPCTL_MODEL_PATH; default
                            ./${DEFAULT_MODEL_DIR} when it is there: npx loopctl model builds it).
                            With it the proxy selects with hybrid, without it with keyword.

Every documented variable is read from the environment (flags win): LOOPCTL_TOKEN (what clients
send as their API key; generated and printed when unset), PROXY_OPENAI_API_KEY,
PROXY_ANTHROPIC_API_KEY, MODEL_*, PROXY_SELECTOR, PROXY_K, PROXY_POLICY, PROXY_AUTH, ALLOWED_HOSTS,
CORS_ORIGINS, LOOPCTL_MCP_SERVERS (tools for /v1/runs)… See docs/proxy.md.`;

/** What {@link serveCommand} reads besides its arguments. */
export interface ServeCommandOptions {
  /** The variables. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Where `./models/use-lite` is looked for. Default the working directory. */
  cwd?: string;
  /** Stops the server when aborted. Default: SIGINT or SIGTERM. */
  signal?: AbortSignal;
}

/** Flag → the variable it sets: every declared setting with a flag (`settings.ts`). */
const FLAG_VARS: Readonly<Record<string, string>> = Object.fromEntries(
  [...Object.values<Setting>(ENTRY_SETTINGS), ...Object.values<Setting>(PROXY_SETTINGS)]
    .filter((declared: Setting): declared is Setting & { flag: string } => declared.flag !== undefined)
    .map((declared) => [declared.flag, declared.variable]),
);

/**
 * `loopctl serve`: the API and the selecting proxy on Node, configured from the environment and
 * flags; prints where it listens and where each protocol goes, and resolves with exit code 0
 * once SIGINT or SIGTERM (or `signal`) has closed the server.
 *
 * @example
 * // PROXY_OPENAI_BASE_URL=https://api.openai.com/v1 LOOPCTL_TOKEN=… npx loopctl serve --port 8787
 * await serveCommand(['--port', '8787'], console.log)
 */
export async function serveCommand(
  args: readonly string[],
  out: (line: string) => void,
  options: ServeCommandOptions = {},
): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    out(SERVE_USAGE);
    return 0;
  }
  let values: Partial<Record<string, string>>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      allowPositionals: false,
      options: Object.fromEntries(Object.keys(FLAG_VARS).map((flag) => [flag, { type: 'string' as const }])),
    }) as { values: Partial<Record<string, string>> });
  } catch (error) {
    throw new UsageError(`${errorMessage(error)}\n\n${SERVE_USAGE}`);
  }
  if (values.port !== undefined && !/^\d{1,5}$/.test(values.port))
    throw new UsageError(`--port must be a port number (0 to 65535; 0 picks a free one), got "${values.port}"`);
  const vars: Record<string, string | undefined> = { ...(options.env ?? process.env) };
  for (const [flag, name] of Object.entries(FLAG_VARS)) {
    const value = values[flag];
    if (value !== undefined) vars[name] = value;
  }

  const [{ generateToken, optionsFromVars }, node, { ToolRegistry }] = await importServer();
  const settings = optionsFromVars(vars);
  const generated = settings.token === undefined;
  const token = settings.token ?? generateToken();
  const cwd = options.cwd ?? process.cwd();
  const modelPath =
    vars.LOOPCTL_MODEL_PATH?.trim() ||
    (existsSync(join(cwd, DEFAULT_MODEL_DIR, 'vocab.json')) ? join(cwd, DEFAULT_MODEL_DIR) : undefined);
  // A folder named by flag or variable must hold the model: useLiteFromDisk says which and how to build it.
  const embedder: EmbedderSource | undefined = modelPath ? node.useLiteFromDisk(resolve(cwd, modelPath)) : undefined;

  const registry: ToolRegistry = new ToolRegistry();
  const mounts = await mountMcpServers(registry, vars.LOOPCTL_MCP_SERVERS, vars, out);
  let server: RunningServer;
  try {
    server = await node.startNodeServer({ registry, token, vars, ...(embedder ? { embedder } : {}) });
  } catch (error) {
    await Promise.all(mounts.map((mount) => mount.unmount()));
    throw error;
  }

  const proxy = settings.proxy ?? {};
  const upstreams = proxyUpstreams(proxy, settings.model);
  const auth = proxy.auth ?? PROXY_DEFAULTS.auth;
  const selector = proxy.selector ?? (embedder ? 'hybrid' : 'keyword');
  // Which key an upstream gets, as the banner says it: its own variable, the model's, or none.
  const keySet = (upstream: ProxyUpstream): string => {
    if (auth === 'passthrough') return "key: the client's own";
    const variable = upstream.settings ? PROXY_SETTINGS[upstream.settings.apiKey].variable : 'its key variable';
    const own = upstream.settings ? proxy[upstream.settings.apiKey] : undefined;
    const model = (settings.model?.provider ?? 'openai') === upstream.name ? settings.model?.apiKey : undefined;
    return `key: ${own ? variable : model ? 'MODEL_API_KEY' : `none, set ${variable}`}`;
  };
  out(`loopctl serve: the loopctl API and the selecting proxy on ${server.url}`);
  for (const protocol of PROTOCOLS) {
    const { upstream, route } = protocol;
    const base = upstreams[upstream.name];
    const flag = upstream.settings ? `--${PROXY_SETTINGS[upstream.settings.baseURL].flag} URL or ` : '';
    const target = base
      ? `${base}${protocol.upstreamPath} (${keySet(upstream)})`
      : `not forwarded: no upstream (${flag}${upstream.baseURLVariable})`;
    out(`  ${`${protocol.label ?? protocol.name}:`.padEnd(25)}POST ${server.url}${route} → ${target}`);
  }
  out(
    auth === 'token'
      ? `  auth: token (clients send LOOPCTL_TOKEN as their API key; the upstream gets the key named above)`
      : `  auth: passthrough (each client's own key goes upstream)`,
  );
  out(
    `  selector: ${selector}, k ${proxy.k ?? PROXY_DEFAULTS.k}, policy ${proxy.policy ?? PROXY_DEFAULTS.policy}; ` +
      (embedder
        ? `embedding model: USE-lite from ${modelPath} (loads on first use)`
        : `embedding model: none in ./${DEFAULT_MODEL_DIR} (build it with npx loopctl model, or pass --model-path DIR), so hybrid and embedding are off`),
  );
  if (mounts.length > 0) out(`  MCP: ${mounts.map((m) => `${m.name} (${m.tools.length} tools)`).join(', ')}`);
  if (vars.LOOPCTL_MCP_SERVERS?.trim())
    out(`  MCP gateway:             ${server.url}/mcp (Streamable HTTP, the same token)`);
  out(generated ? `  token (generated; set LOOPCTL_TOKEN to choose one): ${token}` : '  token: from LOOPCTL_TOKEN');
  out(
    `  clients: new OpenAI({ baseURL: '${server.url}/v1', apiKey: ${generated ? `'${token}'` : 'process.env.LOOPCTL_TOKEN'} }), new Anthropic({ baseURL: '${server.url}', … })`,
  );
  out('  Ctrl-C stops it.');

  await untilStopped(options.signal);
  await server.close();
  await Promise.all(mounts.map((mount) => mount.unmount()));
  out('loopctl serve: stopped');
  return 0;
}

/**
 * The server side, imported only by `serve`, through the package's own published entries
 * (`loopctl/hono`, `loopctl/hono/node`, `loopctl`: a self-reference Node resolves through
 * package.json), so the CLI bundle has no import edge into the app's or the core's modules: such
 * an edge made the bundler split `import 'loopctl'` into more chunks, over its size budget. A
 * missing optional peer is named with its install command.
 */
async function importServer(): Promise<
  [typeof import('../hono/index.js'), typeof import('../hono/node.js'), typeof import('../index.js')]
> {
  // Variables, not literals: the bundler leaves the specifiers to Node.
  const [hono, node, core, nodeServer] = ['loopctl/hono', 'loopctl/hono/node', 'loopctl', '@hono/node-server'];
  try {
    // @hono/node-server is checked now, not at the first listen: the server is useless without it.
    const [app, helper, loopctl] = await Promise.all([import(hono), import(node), import(core), import(nodeServer)]);
    return [app, helper, loopctl];
  } catch (error) {
    const missing = /Cannot find (?:package|module) '(hono|@hono\/node-server)'/.exec(errorMessage(error))?.[1];
    if (missing)
      throw new Error(
        `loopctl serve needs ${missing} (an optional peer of loopctl): npm install hono @hono/node-server`,
        { cause: error },
      );
    throw error;
  }
}

/** LOOPCTL_MCP_SERVERS' tools join the registry /v1/runs serves; one that fails is reported and skipped. */
async function mountMcpServers(
  registry: ToolRegistry,
  value: string | undefined,
  vars: Record<string, string | undefined>,
  out: (line: string) => void,
) {
  if (value === undefined || value.trim() === '') return [];
  const { mountAll, parseGatewayConfig } = await import('../adapters/mcp/index.js');
  // The array, or an editor's mcpServers JSON: the same text the gateway at /mcp serves.
  const listed = parseGatewayConfig(value, 'LOOPCTL_MCP_SERVERS', vars).servers;
  for (const server of listed) if (server.error) out(`  MCP: ${server.name}: ${server.error}`);
  return mountAll(
    registry,
    listed.flatMap((server) => (server.config ? [server.config] : [])),
    { onMountError: (error) => out(`  MCP: ${error.message}`) },
  );
}
