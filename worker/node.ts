/**
 * The demo deployment's Node entry: the loopctl API over the demo tools on
 * `@hono/node-server`. `main()` is the local dev server: it reads the environment, generates a
 * dev token when `LOOPCTL_TOKEN` is unset, serves on `127.0.0.1:8787` (or `HOST`, and `PORT`,
 * which `startNodeServer` reads from the process environment) and
 * prints how to authenticate.
 *
 *   node scripts/serve-node.mjs        (bundles this file, then calls main())
 */
import { existsSync } from 'node:fs';
import { registerDemoTools } from '../demo/demo-tools.js';
import { mountAll, parseGatewayConfig } from '../src/adapters/mcp/index.js';
import { ENTRY_SETTINGS, generateToken, MODEL_DEFAULTS, MODEL_SETTINGS, optionsFromVars } from '../src/hono/index.js';
import type { RunningServer } from '../src/hono/node.js';
import { startNodeServer, useLiteFromDisk, vectorsFromDisk } from '../src/hono/node.js';
import { ToolRegistry } from '../src/index.js';

/**
 * The dev server: environment in, URL and token out (printed).
 *
 * @example
 * await main() // loopctl API on http://127.0.0.1:8787 …
 */
export async function main(env: Record<string, string | undefined> = process.env): Promise<RunningServer> {
  const options = optionsFromVars(env);
  const generated = options.token === undefined;
  const token = options.token ?? generateToken();
  // LOOPCTL_MODEL_PATH names a model folder: a wrong one stops the start (useLiteFromDisk says
  // which folder and how to build it). Unset, the repository's models/use-lite is used if built.
  const embedder = env.LOOPCTL_MODEL_PATH
    ? useLiteFromDisk(env.LOOPCTL_MODEL_PATH)
    : existsSync('models/use-lite/vocab.json')
      ? useLiteFromDisk('models/use-lite')
      : undefined;
  // LOOPCTL_VECTORS names a vectors file; by default the demo registry's, when the demo is built.
  const vectorsPath =
    env.LOOPCTL_VECTORS ?? (existsSync('build/demo/vectors/demo.lcv') ? 'build/demo/vectors/demo.lcv' : undefined);
  // MCP servers from LOOPCTL_MCP_SERVERS (an editor's `mcpServers` JSON, or a JSON array of
  // { url, prefix?, headers? } or { command, args?, env?, cwd? } for stdio) join the demo
  // registry at start, and the app serves them behind its gateway at /mcp; one that fails to
  // mount is reported and skipped. Closing the server unmounts them (stdio servers end).
  const registry = registerDemoTools(new ToolRegistry());
  const listed = env.LOOPCTL_MCP_SERVERS?.trim()
    ? parseGatewayConfig(env.LOOPCTL_MCP_SERVERS, 'LOOPCTL_MCP_SERVERS', env).servers
    : [];
  for (const server of listed) if (server.error) console.warn(`  MCP: ${server.name}: ${server.error}`);
  const configs = listed.flatMap((server) => (server.config ? [server.config] : []));
  const mounts = await mountAll(registry, configs, {
    onMountError: (error) => console.warn(`  MCP: ${error.message}`),
  });
  const server = await startNodeServer({
    ...options,
    registry,
    token,
    ...(embedder ? { embedder } : {}),
    ...(vectorsPath ? { vectors: vectorsFromDisk(vectorsPath) } : {}),
    hostname: env.HOST ?? ENTRY_SETTINGS.host.default,
    vars: env,
  });
  const model = options.model ?? {};
  const { openai } = MODEL_DEFAULTS;
  console.log(`loopctl API (Node) on ${server.url}`);
  console.log(
    `  model: ${model.provider ?? MODEL_SETTINGS.provider.default} ${model.model ?? openai.model} at ${model.baseURL ?? openai.baseURL}`,
  );
  console.log(
    `  embedding selector: ${embedder ? 'USE-lite (int8, loads on first use)' : 'off (run npm run build:model)'}`,
  );
  if (embedder && vectorsPath) console.log(`  precomputed vectors: ${vectorsPath}`);
  if (mounts.length > 0) {
    console.log(`  MCP: ${mounts.map((m) => `${m.name} (${m.tools.length} tools)`).join(', ')}`);
    console.log(`  MCP gateway: ${server.url}/mcp (Authorization: Bearer, as below)`);
  }
  console.log(
    generated ? `  dev token (generated; set LOOPCTL_TOKEN to choose one): ${token}` : '  token: from LOOPCTL_TOKEN',
  );
  console.log(`  try: curl -H "Authorization: Bearer ${generated ? token : '$LOOPCTL_TOKEN'}" ${server.url}/v1/tools`);
  return {
    ...server,
    close: async () => {
      await server.close();
      await Promise.all(mounts.map((mount) => mount.unmount()));
    },
  };
}
