/**
 * The demo page (`public/`) — not the library build (that is `vite.config.ts`).
 *
 *   npx vite build -c vite.demo.config.ts      → build/demo/ (with vectors/demo.lcv)
 *   npx vite -c vite.demo.config.ts            dev server, COOP/COEP on
 *   npx vite preview -c vite.demo.config.ts    serve the build, COOP/COEP on
 *
 * Library code is imported from `src/` directly, so the page never depends on the lib build.
 */
import { fileURLToPath } from 'node:url';
import { defaultClientConditions, defineConfig } from 'vite';
import { demoVectorsPlugin } from './scripts/demo-vectors.mjs';
import { ISOLATION_HEADERS, localAssets, preloadLazyChunks } from './scripts/vite-local-assets.mjs';

const repoRoot = fileURLToPath(new URL('.', import.meta.url));
// Absolute, so the config works whatever the working directory (scripts run it from anywhere).
const pageRoot = fileURLToPath(new URL('./public', import.meta.url));
const outDir = fileURLToPath(new URL('./build/demo', import.meta.url));

export default defineConfig({
  root: pageRoot,
  // The demo's root is `public/`, so Vite's own "public dir" convention does not apply.
  publicDir: false,
  // Relative URLs: the build works from any path (a sub-folder, a file server).
  base: './',
  resolve: {
    // onnxruntime-web's "extern wasm" builds load the runtime `.mjs` from `wasmPaths` (our `ort/`)
    // instead of inlining it and emitting a second copy of each 15–27 MB `.wasm` as an asset.
    conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions],
  },
  // The demo registry's precomputed vectors ship as `vectors/demo.lcv` (built once, cached).
  // The lazy chunks a first visit needs (and the WASM runtime's glue) download with the page.
  plugins: [localAssets(), demoVectorsPlugin(), preloadLazyChunks({ modules: ['ort/ort-wasm-simd-threaded.mjs'] })],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // onnxruntime-web and transformers are split into lazy chunks; their size is expected.
    chunkSizeWarningLimit: 2_000,
  },
  server: {
    host: '127.0.0.1',
    headers: { ...ISOLATION_HEADERS },
    fs: { allow: [repoRoot] },
  },
  preview: {
    host: '127.0.0.1',
    headers: { ...ISOLATION_HEADERS },
  },
  optimizeDeps: {
    // Pre-bundling would rewrite onnxruntime-web's own `import.meta.url` lookups.
    exclude: ['onnxruntime-web', '@huggingface/transformers'],
  },
});
