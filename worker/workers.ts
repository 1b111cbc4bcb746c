/**
 * The demo deployment's Workers entry (light): the loopctl API over the demo tools, and the
 * demo page from the static-assets binding. Bindings: see `createWorker` in `loopctl/hono`
 * and wrangler.toml. `[assets] run_worker_first` sends every request here, so the page is
 * served for GET/HEAD and anything else outside the API is a JSON error, never an empty 405.
 */
import { ToolRegistry } from '../src/index.js';
import type { ModuleWorker, WorkerEnv, WorkerOptions } from '../src/hono/index.js';
import { ApiError, createWorker, errorResponse } from '../src/hono/index.js';
import { registerDemoTools } from '../demo/demo-tools.js';

/**
 * The demo worker: demo tools, the embedder and vectors file chosen from the bindings, the page
 * from ASSETS.
 *
 * @example
 * export default demoWorker({ embedder: (env) => (env.AI ? workersAIEmbedder(env.AI) : undefined) })
 */
export function demoWorker(options: Omit<WorkerOptions, 'registry'> = {}): ModuleWorker<WorkerEnv> {
  const api = createWorker({ ...options, registry: () => registerDemoTools(new ToolRegistry()) });
  return {
    async fetch(request, env, ctx) {
      const { pathname } = new URL(request.url);
      if (!env.ASSETS || pathname === '/healthz' || pathname.startsWith('/v1/')) return api.fetch(request, env, ctx);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return errorResponse(new ApiError(405, 'method_not_allowed', 'the demo page accepts GET and HEAD'), { allow: 'GET, HEAD' });
      }
      const page = await env.ASSETS.fetch(request);
      if (page.status !== 404) return page;
      await page.body?.cancel();
      return api.fetch(request, env, ctx);
    },
  };
}

export default demoWorker();
