/**
 * The Node entry: the same app on `@hono/node-server`. `main()` is the local dev server: it
 * reads the environment, generates a dev token when `LOOPCTL_TOKEN` is unset, serves on
 * `127.0.0.1:8787` (or `PORT`/`HOST`) and prints how to authenticate.
 *
 *   node scripts/serve-node.mjs        (bundles this file, then calls main())
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { serve } from '@hono/node-server';
import type { AppOptions } from './app.js';
import { createApp } from './app.js';
import { generateToken } from './bearer-auth.js';
import { optionsFromVars } from './env-options.js';
import { mountAll, parseMcpServers } from '../src/adapters/mcp/index.js';
import { ToolRegistry } from '../src/registry/registry.js';
import { registerDemoTools } from '../demo/demo-tools.js';
import type { EmbedderSource } from './selector-table.js';
import type { VectorsSource } from '../src/embed/vectors-source.js';

/** Options for {@link startNodeServer}: the app's, plus where to listen. */
export interface NodeServerOptions extends AppOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1` (loopback only). */
  hostname?: string;
}

/** A listening server. */
export interface RunningServer {
  /** E.g. `http://127.0.0.1:8787`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serve the app over HTTP from Node.
 *
 * @example
 * const server = await startNodeServer({ port: 0, token: 'secret' })
 * await fetch(`${server.url}/healthz`)
 * await server.close()
 */
export async function startNodeServer(options: NodeServerOptions = {}): Promise<RunningServer> {
  const { port, hostname, ...appOptions } = { port: 8787, hostname: '127.0.0.1', ...options };
  const app = createApp(appOptions);
  let server!: ReturnType<typeof serve>;
  const info = await new Promise<AddressInfo>((done) => {
    server = serve({ fetch: app.fetch, port, hostname }, done);
  });
  const host = info.address.includes(':') ? `[${info.address}]` : info.address;
  return {
    url: `http://${host}:${info.port}`,
    port: info.port,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

/**
 * The embedder Node uses: USE-lite from the built model folder (`npm run build:model`),
 * loaded on first use. Undefined when the folder is missing, so `embedding` answers 503.
 *
 * @example
 * const embedder = useLiteFromDisk('models/use-lite')
 */
export function useLiteFromDisk(modelPath: string): EmbedderSource | undefined {
  const folder = resolve(modelPath);
  if (!existsSync(resolve(folder, 'vocab.json'))) return undefined;
  return async () => {
    const { useLiteEmbedder } = await import('../src/adapters/use-lite.js');
    const embedder = useLiteEmbedder({ modelPath: folder, dtype: 'int8', device: 'wasm' });
    await embedder.load();
    return embedder;
  };
}

/**
 * A precomputed vectors file on disk (`loopctl vectors`), read when the embedding selector first
 * needs it; a missing or bad file becomes the selection's warning, never a failed request.
 *
 * @example
 * await startNodeServer({ embedder, vectors: vectorsFromDisk('build/demo/vectors/demo.lcv') })
 */
export function vectorsFromDisk(path: string): VectorsSource {
  return async () => new Uint8Array(await readFile(path));
}

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
  const embedder = useLiteFromDisk(env.LOOPCTL_MODEL_PATH ?? 'models/use-lite');
  // LOOPCTL_VECTORS names a vectors file; by default the demo registry's, when the demo is built.
  const vectorsPath = env.LOOPCTL_VECTORS ?? (existsSync('build/demo/vectors/demo.lcv') ? 'build/demo/vectors/demo.lcv' : undefined);
  // MCP servers from LOOPCTL_MCP_SERVERS (a JSON array of { url, prefix?, headers? } or
  // { command, args?, env?, cwd? } for stdio) join the demo registry at start; one that fails
  // to mount is reported and skipped. Closing the server unmounts them (stdio servers end).
  const registry = options.registry ?? registerDemoTools(new ToolRegistry());
  const mounts = await mountAll(registry, parseMcpServers(env.LOOPCTL_MCP_SERVERS), {
    onMountError: (error) => console.warn(`  MCP: ${error.message}`),
  });
  const server = await startNodeServer({
    ...options,
    registry,
    token,
    ...(embedder ? { embedder } : {}),
    ...(vectorsPath ? { vectors: vectorsFromDisk(vectorsPath) } : {}),
    port: env.PORT ? Number(env.PORT) : 8787,
    hostname: env.HOST ?? '127.0.0.1',
  });
  const model = options.model ?? {};
  console.log(`loopctl API (Node) on ${server.url}`);
  console.log(`  model: ${model.provider ?? 'openai'} ${model.model ?? 'qwen3:4b'} at ${model.baseURL ?? 'http://127.0.0.1:11434/v1'}`);
  console.log(`  embedding selector: ${embedder ? 'USE-lite (int8, loads on first use)' : 'off (run npm run build:model)'}`);
  if (embedder && vectorsPath) console.log(`  precomputed vectors: ${vectorsPath}`);
  if (mounts.length > 0) console.log(`  MCP: ${mounts.map((m) => `${m.name} (${m.tools.length} tools)`).join(', ')}`);
  console.log(generated ? `  dev token (generated; set LOOPCTL_TOKEN to choose one): ${token}` : '  token: from LOOPCTL_TOKEN');
  console.log(`  try: curl -H "Authorization: Bearer ${generated ? token : '$LOOPCTL_TOKEN'}" ${server.url}/v1/tools`);
  return {
    ...server,
    close: async () => {
      await server.close();
      await Promise.all(mounts.map((mount) => mount.unmount()));
    },
  };
}
