/**
 * The Cloudflare Workers entry with the offline embedder inside the worker: USE-lite on
 * onnxruntime-web, the ONNX file read from the static-assets binding
 * (`/models/use-lite/…`, copied there by the demo build), ORT's WASM imported as a
 * precompiled module. About 14 MB raw / 3.6 MB gzip of runtime: beyond the Workers Free
 * plan's script limit, so deploy this one on a paid plan (or use `workers.ts` with Workers AI).
 * Everything else is `workers.ts`: same bindings, same API.
 */
import ortWasm from 'onnxruntime-web/ort-wasm-simd-threaded.wasm';
import * as ort from 'onnxruntime-web/wasm';
import { kvVectorsFile } from '../src/adapters/kv.js';
import { useLiteEmbedder } from '../src/adapters/use-lite.js';
import { workersAIEmbedder } from '../src/adapters/workers-ai.js';
import type { WorkerEnv } from '../src/hono/index.js';
import type { Embedder } from '../src/index.js';
import { useCompiledOrtWasm } from './ort-compiled-wasm.js';
import { kvOrAssetVectors } from './worker-vectors.js';
import { demoWorker } from './workers.js';

/** Where the model folder is served inside the assets directory. */
const MODEL_PATH = 'https://assets.invalid/models/use-lite/';

/**
 * USE-lite (int8) reading its files through the assets binding.
 *
 * @example
 * const embedder = assetsUseLite(env)
 * await embedder.embed(['weather in Oslo'])
 */
export function assetsUseLite(env: WorkerEnv): Embedder {
  const assets = env.ASSETS;
  if (!assets) throw new Error('the ASSETS binding is missing (wrangler.toml [assets] binding = "ASSETS")');
  useCompiledOrtWasm(ort.env, ortWasm);
  return useLiteEmbedder({
    modelPath: MODEL_PATH,
    dtype: 'int8',
    device: 'wasm',
    numThreads: 1,
    fetch: (url) => assets.fetch(new Request(url)),
  });
}

// The proxy's budget of new tool lists, shared by every isolate (wrangler.toml binds it as
// TOOL_SET_BUDGET): a Durable Object class must be exported by the main module.
export { LearnedTrafficObject, McpSessionsObject, ToolSetBudgetObject } from '../src/hono/index.js';

export default demoWorker({
  // Workers AI when bound (lighter and faster), else the in-worker model.
  embedder: (env) => (env.AI ? workersAIEmbedder(env.AI, env.EMBEDDING_MODEL || undefined) : () => assetsUseLite(env)),
  // The shipped vectors are USE-lite's: with Workers AI only a KV file (built for that model) applies.
  vectors: (env) => (env.AI ? (env.VECTORS ? kvVectorsFile(env.VECTORS) : undefined) : kvOrAssetVectors(env)),
});
