#!/usr/bin/env node
/**
 * Builds the Manifest V3 extension into `examples/extension/dist/` with Vite's API: the popup
 * bundles loopctl from `src/`, and the model folder plus onnxruntime-web's WASM files are copied
 * beside it, so the extension runs offline. Load `dist/` with chrome://extensions → Load unpacked.
 *
 * Usage: `node examples/extension/build.mjs`
 */
import { copyFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, defaultClientConditions } from 'vite';
import { defaultMounts, localAssets } from '../../scripts/vite-local-assets.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = join(here, 'dist');

/**
 * Build the extension; resolves with the output folder.
 *
 * @param {{ quiet?: boolean }} [options]
 */
export async function buildExtension(options = {}) {
  await build({
    configFile: false,
    root: here,
    base: './',
    publicDir: false,
    logLevel: options.quiet ? 'warn' : 'info',
    // The extern-wasm builds load ORT's runtime from our `ort/` folder instead of inlining it.
    resolve: { conditions: ['onnxruntime-web-use-extern-wasm', ...defaultClientConditions] },
    plugins: [localAssets({ mounts: extensionMounts() })],
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      // MV3 forbids inline scripts; keep every script a file.
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
      chunkSizeWarningLimit: 2_000,
      rollupOptions: { input: join(here, 'popup.html') },
    },
  });
  copyFileSync(join(here, 'manifest.json'), join(outDir, 'manifest.json'));
  return outDir;
}

/**
 * Only what the popup loads: the int8 model (not the 28 MB fp32 file) and the two ORT runtimes
 * it can pick (plain WASM, and the asyncify build behind WebGPU).
 */
function extensionMounts() {
  const [model, ort] = defaultMounts({ modelFiles: (path) => path !== 'onnx/model.onnx' });
  return [model, { ...ort, filter: (path) => /^ort-wasm-simd-threaded(\.asyncify)?\.(wasm|mjs)$/.test(path) }];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = await buildExtension();
  console.log(`extension built: ${relative(process.cwd(), dir) || '.'} (chrome://extensions → Load unpacked)`);
}
