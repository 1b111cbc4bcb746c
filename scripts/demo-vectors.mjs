#!/usr/bin/env node
/**
 * Build the demo registry's vectors file once (`demo/demo-vectors.ts`) and copy it where it is
 * served: `build/demo/vectors/demo.lcv` by default. A cached copy under
 * `node_modules/.cache/loopctl/` is reused while it still covers every demo tool text, so only
 * the first build (or a change to the demo tools) embeds anything.
 *
 * Used by the demo build (vite.demo.config.ts) and `npm start` / `--prepare`.
 *
 *   node scripts/demo-vectors.mjs [--out build/demo/vectors/demo.lcv]
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = join(repoRoot, 'node_modules', '.cache', 'loopctl', 'demo-vectors.lcv');

/** Bundle the TS module with esbuild (a dev dependency) beside the cache, then import it. */
async function demoModule() {
  const { build } = await import('esbuild');
  const outfile = join(dirname(CACHE), 'demo-vectors.mjs');
  await build({
    entryPoints: [join(repoRoot, 'demo', 'demo-vectors.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return import(`${pathToFileURL(outfile).href}?t=${Date.now()}`);
}

/**
 * Make sure `outFile` holds the demo registry's vectors; returns what happened.
 *
 * @param {{ outFile?: string, modelPath?: string, log?: (line: string) => void }} [options]
 * @returns {Promise<{ outFile: string, built: boolean, bytes: number }>}
 */
export async function ensureDemoVectors(options = {}) {
  const outFile = options.outFile ?? join(repoRoot, 'build', 'demo', 'vectors', 'demo.lcv');
  const modelPath = options.modelPath ?? join(repoRoot, 'models', 'use-lite');
  const log = options.log ?? (() => {});
  const demo = await demoModule();
  let built = false;
  if (!existsSync(CACHE) || !demo.coversDemo(new Uint8Array(readFileSync(CACHE)))) {
    const started = performance.now();
    const bytes = await demo.buildDemoVectors(modelPath);
    mkdirSync(dirname(CACHE), { recursive: true });
    writeFileSync(`${CACHE}.tmp`, bytes);
    renameSync(`${CACHE}.tmp`, CACHE);
    built = true;
    log(`built the demo vectors (${bytes.byteLength} bytes) in ${Math.round(performance.now() - started)} ms`);
  }
  mkdirSync(dirname(outFile), { recursive: true });
  copyFileSync(CACHE, outFile);
  return { outFile, built, bytes: readFileSync(outFile).byteLength };
}

/**
 * Vite plugin: after the demo bundle is written, put the vectors beside it; in dev, serve them.
 *
 * @returns {import('vite').Plugin}
 */
export function demoVectorsPlugin() {
  let outDir = '';
  return {
    name: 'loopctl-demo-vectors',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    configureServer(server) {
      const ready = ensureDemoVectors({ outFile: CACHE.replace(/\.lcv$/, '.dev.lcv') });
      server.middlewares.use(async (req, res, next) => {
        if (!new URL(req.url ?? '/', 'http://x').pathname.endsWith('/vectors/demo.lcv')) return next();
        try {
          const { outFile } = await ready;
          res.setHeader('content-type', 'application/octet-stream');
          res.end(readFileSync(outFile));
        } catch (error) {
          next(error);
        }
      });
    },
    async writeBundle() {
      const result = await ensureDemoVectors({ outFile: join(outDir, 'vectors', 'demo.lcv') });
      this.info?.(`demo vectors: ${result.bytes} bytes${result.built ? ' (built)' : ' (cached)'}`);
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  const outFile = at === -1 ? undefined : resolve(process.argv[at + 1] ?? '');
  const result = await ensureDemoVectors({ ...(outFile ? { outFile } : {}), log: console.log });
  console.log(`demo vectors: ${result.outFile} (${result.bytes} bytes${result.built ? ', built' : ', cached'})`);
  process.exit(0);
}
