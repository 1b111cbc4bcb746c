/**
 * A small Vite plugin that serves and ships files the bundle does not import: the use-lite model
 * folder and onnxruntime-web's WASM runtime. In dev they are served straight from their source
 * folders; a build copies them into the output, so the app never fetches them from a CDN.
 *
 * Shared by `vite.demo.config.ts` and `examples/extension/build.mjs`.
 */
import { copyFileSync, createReadStream, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Content types the demo's static files need (WASM streaming compile insists on its type). */
export const MIME = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.lcv': 'application/octet-stream',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
});

/** Headers that make a page cross-origin isolated, so onnxruntime-web may use WASM threads. */
export const ISOLATION_HEADERS = Object.freeze({
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
});

/** Folder of onnxruntime-web's `dist/` (resolved through the package's exports). */
export function ortDistDir() {
  return dirname(require.resolve('onnxruntime-web/ort-wasm-simd-threaded.wasm'));
}

/** The use-lite model folder built by `npm run build:model`. */
export function modelDir() {
  return join(repoRoot, 'models', 'use-lite');
}

/** The ORT runtime files an app serves: `ort-wasm-simd-threaded*.{wasm,mjs}`. */
export function isOrtRuntimeFile(name) {
  return /^ort-wasm-simd-threaded.*\.(wasm|mjs)$/.test(name);
}

/**
 * The two mounts every loopctl browser app needs: the model folder under `models/use-lite/`
 * and the ORT WASM files under `ort/`.
 *
 * @param {{ modelFiles?: (path: string) => boolean }} [options] filter on model paths (relative, `/`-separated)
 * @returns {Mount[]}
 */
export function defaultMounts(options = {}) {
  const dir = modelDir();
  if (!existsSync(join(dir, 'vocab.json'))) {
    throw new Error(`model folder ${dir} is not built: run \`npm run build:model\` first`);
  }
  return [
    { url: 'models/use-lite/', dir, filter: options.modelFiles ?? (() => true) },
    { url: 'ort/', dir: ortDistDir(), filter: (path) => !path.includes('/') && isOrtRuntimeFile(path) },
  ];
}

/**
 * @typedef {object} Mount
 * @property {string} url  URL prefix relative to the app base, ending in `/`
 * @property {string} dir  source folder
 * @property {(path: string) => boolean} filter which relative paths (`/`-separated) are served and copied
 */

/** Every file under `dir`, as `/`-separated relative paths. */
function listFiles(dir, prefix = '') {
  const out = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(dir, path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/**
 * Copy the mounts into `outDir`. Returns the files copied (relative to `outDir`).
 *
 * @param {Mount[]} mounts
 * @param {string} outDir
 */
export function copyMounts(mounts, outDir) {
  const copied = [];
  for (const mount of mounts) {
    for (const path of listFiles(mount.dir).filter(mount.filter)) {
      const to = join(outDir, mount.url, path);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(join(mount.dir, path), to);
      copied.push(`${mount.url}${path}`);
    }
  }
  return copied;
}

/**
 * The Vite plugin: dev middleware for the mounts plus a copy into `build.outDir` after the bundle
 * is written.
 *
 * @param {{ mounts?: Mount[] }} [options]
 * @returns {import('vite').Plugin}
 */
export function localAssets(options = {}) {
  /** @type {Mount[] | undefined} */
  let mounts = options.mounts;
  let outDir = '';
  let base = '/';
  return {
    name: 'loopctl-local-assets',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
      base = config.base;
    },
    configureServer(server) {
      mounts ??= defaultMounts();
      const active = mounts;
      server.middlewares.use((req, res, next) => {
        const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
        for (const mount of active) {
          const prefix = `${base}${mount.url}`;
          if (!pathname.startsWith(prefix)) continue;
          const rel = pathname.slice(prefix.length);
          const file = resolve(mount.dir, rel);
          // Never serve outside the mount, nor what the filter excludes.
          if (!file.startsWith(mount.dir + sep) || !mount.filter(relative(mount.dir, file).split(sep).join('/'))) break;
          if (!existsSync(file) || !statSync(file).isFile()) break;
          res.setHeader('content-type', MIME[extname(file)] ?? 'application/octet-stream');
          res.setHeader('content-length', String(statSync(file).size));
          for (const [name, value] of Object.entries(ISOLATION_HEADERS)) res.setHeader(name, value);
          createReadStream(file).pipe(res);
          return;
        }
        next();
      });
    },
    // `vite preview` gzips on the fly whatever its static server gives no type (it counts as
    // text): the 7.8 MB model was compressed again on every request (0.4 s, for 6%). Binary
    // files get their type first, as any real server or CDN sends them.
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        const type = MIME[extname(new URL(req.url ?? '/', 'http://x').pathname)];
        if (type === 'application/octet-stream') res.setHeader('content-type', type);
        next();
      });
    },
    writeBundle() {
      mounts ??= defaultMounts();
      const copied = copyMounts(mounts, outDir);
      this.info?.(`copied ${copied.length} model/runtime files into ${relative(repoRoot, outDir)}`);
    },
  };
}

/**
 * A Vite plugin for a page's first visit: `<link rel="modulepreload">` for every chunk the entry
 * imports lazily (`import()`, followed through their own imports), plus `modules` the bundle does
 * not know (such as onnxruntime-web's runtime `.mjs` under `ort/`). The browser then fetches and
 * compiles them while the entry runs, instead of one after another as each `import()` is reached
 * (the runtime, then its WASM glue; the vector cache, its codec, the vectors decoder, learned
 * examples). A lazy chunk still runs only when imported. Build only.
 *
 * @example
 * // vite.demo.config.ts
 * plugins: [localAssets(), preloadLazyChunks({ modules: ['ort/ort-wasm-simd-threaded.mjs'] })]
 *
 * @param {{ modules?: string[], include?: (fileName: string) => boolean }} [options]
 *   `modules`: extra module URLs, relative to the app base; `include`: which lazy chunks (default all)
 * @returns {import('vite').Plugin}
 */
export function preloadLazyChunks(options = {}) {
  const { modules, include } = { modules: [], include: () => true, ...options };
  let base = '/';
  return {
    name: 'loopctl-preload-lazy-chunks',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const { bundle, chunk } = ctx;
        if (!bundle || !chunk) return [];
        const lazy = new Set();
        const visit = (fileName) => {
          const next = bundle[fileName];
          // The entry and its static imports load with the page already (Vite preloads those).
          if (
            next?.type !== 'chunk' ||
            lazy.has(fileName) ||
            fileName === chunk.fileName ||
            chunk.imports.includes(fileName)
          )
            return;
          lazy.add(fileName);
          for (const child of [...next.imports, ...next.dynamicImports]) visit(child);
        };
        for (const fileName of chunk.dynamicImports) visit(fileName);
        const hrefs = [...[...lazy].filter(include), ...modules];
        return hrefs.map((href) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${href}` },
          injectTo: 'head',
        }));
      },
    },
  };
}
