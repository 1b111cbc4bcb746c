#!/usr/bin/env node
/**
 * Run the worker's Node entry (`worker/node.ts` on @hono/node-server): bundle it with esbuild
 * into dist/worker/node.mjs (dependencies stay external, read from node_modules), then start
 * its dev server. Environment: PORT (default 8787), HOST, LOOPCTL_TOKEN (generated and printed
 * when unset), MODEL_PROVIDER, MODEL_BASE_URL, MODEL_NAME, MODEL_API_KEY (the model's key, and the
 * proxy's for MODEL_PROVIDER's protocol only), PROXY_OPENAI_API_KEY, PROXY_ANTHROPIC_API_KEY (one
 * key per proxy upstream), CORS_ORIGINS, ALLOWED_HOSTS (default on a loopback HOST: 127.0.0.1,
 * localhost, [::1]), and the other PROXY_* variables.
 *
 * @example
 *   node scripts/serve-node.mjs
 *   PORT=9000 LOOPCTL_TOKEN=secret node scripts/serve-node.mjs
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Bundle worker/node.ts; returns the output file. */
export async function buildNodeEntry() {
  const { build } = await import('esbuild');
  const outfile = join(root, 'dist', 'worker', 'node.mjs');
  await build({
    entryPoints: [join(root, 'worker', 'node.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  return outfile;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const entry = await import(pathToFileURL(await buildNodeEntry()).href);
  // A busy port or a wrong model folder is the operator's to fix: one line, no stack.
  await entry.main().catch((error) => {
    console.error(`loopctl: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
