/**
 * The demo deployment's Workers entry (light): the loopctl API over the demo tools, and the
 * demo page from the static-assets binding. Bindings: see `createWorker` in `loopctl/hono`
 * and wrangler.toml. `[assets] run_worker_first` sends every request here, so the page is
 * served for GET/HEAD (cross-origin isolated) and anything else outside the API is a JSON error,
 * never an empty 405.
 */

import { registerDemoTools } from '../demo/demo-tools.js';
import type { ModuleWorker, WorkerEnv, WorkerOptions } from '../src/hono/index.js';
import { ApiError, createWorker, errorResponse, MCP_PATH } from '../src/hono/index.js';
import { ToolRegistry } from '../src/index.js';

/**
 * The demo page's cross-origin isolation, on every file it is served with (as the Vite dev
 * server and `vite preview` send them, scripts/vite-local-assets.mjs): with COOP/COEP the page
 * is `crossOriginIsolated`, so onnxruntime-web embeds on several WASM threads; CORP lets the
 * page load its own files under COEP.
 */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
});

/** An asset response with {@link ISOLATION_HEADERS} (the binding's headers are immutable). */
function isolated(page: Response): Response {
  const response = new Response(page.body, page);
  for (const [name, value] of Object.entries(ISOLATION_HEADERS)) response.headers.set(name, value);
  return response;
}

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
      if (!env.ASSETS || pathname === '/healthz' || pathname === MCP_PATH || pathname.startsWith('/v1/'))
        return api.fetch(request, env, ctx);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return errorResponse(new ApiError(405, 'method_not_allowed', 'the demo page accepts GET and HEAD'), {
          allow: 'GET, HEAD',
        });
      }
      const page = await env.ASSETS.fetch(request);
      if (page.status !== 404) return isolated(page);
      await page.body?.cancel();
      return api.fetch(request, env, ctx);
    },
  };
}

// The proxy's budget of new tool lists (TOOL_SET_BUDGET), what it learns (LEARNED_TRAFFIC) and
// the MCP gateway's sessions (MCP_SESSIONS), shared by every isolate: a Durable Object class
// must be exported by the main module.
export { LearnedTrafficObject, McpSessionsObject, ToolSetBudgetObject } from '../src/hono/index.js';

export default demoWorker();
