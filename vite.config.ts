import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// Library build: one ESM entry per public subpath. Heavy optional runtimes stay external and
// are imported lazily by their adapters, so the core bundle carries none of them.
const external = [
  /^@huggingface\/transformers/,
  /^onnxruntime-/,
  /^idb-keyval/,
  /^@modelcontextprotocol\/sdk/,
  /^@modelcontextprotocol\/server/,
  /^gpt-tokenizer/,
  /^node:/,
  // loopctl/hono: Hono (and @hono/node-server for loopctl/hono/node) are the user's, as peers.
  /^hono(\/|$)/,
  /^@hono\//,
];

/**
 * dist/esm-only.cjs, package.json's `require` target: a CommonJS file that throws "loopctl is
 * ESM-only…", so `require('loopctl')` says what to do instead of Node's "No exports main defined".
 */
function esmOnlyRequire(): Plugin {
  return {
    name: 'loopctl-esm-only-require',
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'esm-only.cjs',
        source: readFileSync(new URL('src/esm-only.cjs', import.meta.url), 'utf8'),
      });
    },
  };
}

export default defineConfig({
  plugins: [esmOnlyRequire()],
  // The library ships what its entries import and nothing else: `public/` is the demo's source
  // folder, not static files to copy into dist/ (the demo builds to build/demo, see vite.demo.config.ts).
  publicDir: false,
  build: {
    target: 'es2022',
    outDir: 'dist',
    // A fresh dist/ each build, so nothing left over from an older build is packed.
    emptyOutDir: true,
    sourcemap: true,
    minify: true,
    lib: {
      entry: {
        index: 'src/index.ts',
        'selector-kit': 'src/selector-kit.ts',
        vectors: 'src/vectors.ts',
        cli: 'src/cli/index.ts',
        idb: 'src/adapters/idb.ts',
        kv: 'src/adapters/kv.ts',
        transformers: 'src/adapters/transformers.ts',
        'use-lite': 'src/adapters/use-lite.ts',
        'workers-ai': 'src/adapters/workers-ai.ts',
        'file-cache': 'src/adapters/file-cache.ts',
        mcp: 'src/adapters/mcp/index.ts',
        'ai-sdk': 'src/adapters/ai-sdk.ts',
        anthropic: 'src/adapters/anthropic-tool-search.ts',
        openai: 'src/adapters/openai-tool-search.ts',
        'openai-agents': 'src/adapters/openai-agents.ts',
        'openai-responses': 'src/adapters/openai-responses.ts',
        gemini: 'src/adapters/gemini-tool-search.ts',
        tools: 'src/file-tools/file-tools.ts',
        'tools-node': 'src/file-tools/node-file-system.ts',
        'tools-deno': 'src/file-tools/deno-file-system.ts',
        hono: 'src/hono/index.ts',
        'hono-node': 'src/hono/node.ts',
      },
      formats: ['es'],
    },
    rollupOptions: { external, output: { minify: true } },
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/deno/**', 'test/workers/**', 'test/e2e/**', 'node_modules/**'],
    // Tests that run the bin or pack the package need a fresh dist/: built once, before them all.
    globalSetup: ['test/support/global-build.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
