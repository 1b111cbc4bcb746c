/**
 * Where a worker finds its precomputed vectors file: Workers KV first (a file the operator
 * put there with `wrangler kv bulk put`), then the static assets (the file shipped beside the
 * demo page). Neither present is simply no file; a bad one becomes the selector's warning.
 */
import { kvVectorsFile } from '../src/adapters/kv.js';
import type { WorkerEnv } from '../src/hono/index.js';
import type { VectorsSource } from '../src/index.js';

/** Where the demo build puts the demo registry's vectors (scripts/demo-vectors.mjs). */
export const ASSET_VECTORS_PATH = '/vectors/demo.lcv';

/**
 * The vectors file from KV (`loopctl:vectors-file`) when set, else from the assets binding.
 *
 * @example
 * createWorker({ vectors: (env) => kvOrAssetVectors(env) })
 */
export function kvOrAssetVectors(env: WorkerEnv, assetPath: string = ASSET_VECTORS_PATH): VectorsSource {
  return async () => {
    const stored = env.VECTORS ? await kvVectorsFile(env.VECTORS)() : null;
    if (stored) return stored;
    if (!env.ASSETS) return undefined;
    const response = await env.ASSETS.fetch(new Request(new URL(assetPath, 'https://assets.invalid/')));
    return response.status === 404 ? undefined : response;
  };
}
